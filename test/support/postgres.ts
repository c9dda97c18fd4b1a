import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { type Database, fromKysely, openPostgres } from '../../src/core/storage/database';
import type { DB } from '../../src/core/storage/schema';

/**
 * A fresh, empty PostgreSQL database for one test file: a new database on the server at PG_URL
 * (CI uses the machine's PostgreSQL), or an embedded PGlite when PG_URL is unset.
 */
export async function openTestPostgres(): Promise<{ database: Database; kind: 'server' | 'pglite'; /** The database's URL (server only). */ url?: string; drop(): Promise<void> }> {
  const serverUrl = process.env.PG_URL;
  if (!serverUrl) {
    const pglite = new PGlite();
    const database = fromKysely(new Kysely<DB>({ dialect: new PGliteDialect(pglite) }));
    return { database, kind: 'pglite', drop: () => database.close() };
  }
  const scratch = await createServerDatabase(serverUrl, 'punchcard_test');
  const database = openPostgres(scratch.url, 4);
  return {
    database,
    kind: 'server',
    url: scratch.url,
    drop: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/** A new, empty database on the PostgreSQL server at `serverUrl`: its URL, and the function that drops it. */
export async function createServerDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      // A pool's end() can resolve before its sockets are gone; forcing the drop then kills them
      // mid-close and their clients throw "terminating connection" into whatever test runs next.
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        const open = await cleanup.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
        if (open.rows[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/** Resolves once some connection to this database waits for a lock (a staged interleaving's step). */
export async function waitForLockWait(observer: pg.Client): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    // In a transaction (an observer holding a lock) pg_stat_activity is a snapshot taken at its first read.
    await observer.query('select pg_stat_clear_snapshot()');
    const waiting = await observer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
    if (waiting.rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no connection waited for a lock within 10 s');
}
