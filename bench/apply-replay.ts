// Replays one recorded store outbox into fresh copies of one central, to compare changes to central's
// apply old against new (docs/speed.md, fourteenth pass: the rate swings ±10–15 % between
// processes, so compare several runs of each, alternating; an old tree runs from a `git worktree`).
//
//   npx tsx bench/apply-replay.ts record sqlite|postgres   records the outbox (REPLAY_EVENTS, default 100,000)
//   npx tsx bench/apply-replay.ts apply sqlite|postgres    applies it to a fresh copy; prints events/s
//
// REPLAY_TIMINGS=1 adds the time of each statement (the pages' run through better-sqlite3 or pg).
// PostgreSQL needs PG_URL. Files live in REPLAY_DIR (default: punchcard-replay in the temp folder):
// the pages (pages-<database>.json) and, for SQLite, the central it was recorded against; PostgreSQL
// keeps that central as the database punchcard_replay_template, copied per run (CREATE DATABASE …
// TEMPLATE).
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { startEngine } from '../src/core/engine';
import { openDatabaseUrl } from '../src/core/storage/database';
import { installChangeCapture } from '../src/core/sync/capture/install-capture';
import { acceptPushedEvents } from '../src/core/sync/central/apply-push';
import { authenticateNode } from '../src/core/sync/central/pairing';
import { readPendingEvents, recordVerdicts } from '../src/core/sync/outbox/pending-events';
import type { PushedEvent } from '../src/core/sync/protocol';
import { PUSH_PAGE } from '../src/core/sync/store/sync-client';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { storeWithOfflineOrders } from './offline-outbox';

const [mode, kind] = process.argv.slice(2);
if ((mode !== 'record' && mode !== 'apply') || (kind !== 'sqlite' && kind !== 'postgres')) {
  console.error('usage: npx tsx bench/apply-replay.ts record|apply sqlite|postgres');
  process.exit(2);
}
const dir = process.env.REPLAY_DIR ?? join(tmpdir(), 'punchcard-replay');
const pagesFile = join(dir, `pages-${kind}.json`);
const TEMPLATE = 'punchcard_replay_template';
// `punchcard central` opens its SQLite file with checkpoints in the background (store-node.ts).
const AS_CENTRAL = { backgroundCheckpoints: true };
mkdirSync(dir, { recursive: true });

/** The server of PG_URL as an administrator's client, and the URL of one of its databases. */
function postgresServer() {
  const server = process.env.PG_URL;
  if (!server) throw new Error('postgres needs PG_URL');
  const urlOf = (name: string) => Object.assign(new URL(server), { pathname: `/${name}` }).toString();
  return { admin: new pg.Client({ connectionString: server }), urlOf };
}

async function record(): Promise<void> {
  const events = Number(process.env.REPLAY_EVENTS ?? 100_000);
  const work = mkdtempSync(join(dir, 'record-'));
  let url = join(dir, 'central.db');
  if (kind === 'postgres') {
    const { admin, urlOf } = postgresServer();
    await admin.connect();
    await admin.query(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.query(`create database ${TEMPLATE}`);
    await admin.end();
    url = urlOf(TEMPLATE);
  } else {
    rmSync(url, { force: true });
  }
  const central = await startEngine({ database: openDatabaseUrl(url, AS_CENTRAL), nodeKey: randomBytes(32), role: 'central' });
  await installChangeCapture(central.db, central.dialect, 'central');
  const vendor = await setUpVendor(central, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'A', address1: '1 Main', city: 'X' } });
  const { store, credential } = await storeWithOfflineOrders(central, vendor, 'orders', events, work);
  // The pages a store pushes, each marked answered so that the next read gives the next page.
  const pages: PushedEvent[][] = [];
  for (let page = await readPendingEvents(store, PUSH_PAGE); page.length > 0; page = await readPendingEvents(store, PUSH_PAGE)) {
    pages.push(page);
    const verdicts = page.map((e) => ({ node_seq: e.node_seq, event_id: e.event_id, verdict: 'applied' as const, code: null, message: null }));
    await store.db.transaction().execute((trx) => recordVerdicts(trx, store, verdicts));
  }
  writeFileSync(pagesFile, JSON.stringify({ credential, pages }));
  if (kind === 'sqlite') await sql`pragma wal_checkpoint(truncate)`.execute(central.db);
  await store.close();
  await central.close();
  rmSync(work, { recursive: true, force: true });
  console.log(JSON.stringify({ recorded: pages.reduce((n, p) => n + p.length, 0), pages: pages.length, into: dir }));
}

async function apply(): Promise<void> {
  const { credential, pages } = JSON.parse(readFileSync(pagesFile, 'utf8')) as { credential: string; pages: PushedEvent[][] };
  const run = mkdtempSync(join(dir, 'run-'));
  const name = `punchcard_replay_${process.pid}`;
  const server = kind === 'postgres' ? postgresServer() : null;
  let url = join(run, 'central.db');
  if (server) {
    await server.admin.connect();
    await server.admin.query(`create database ${name} template ${TEMPLATE}`);
    url = server.urlOf(name);
  } else {
    copyFileSync(join(dir, 'central.db'), url);
  }
  const timings = process.env.REPLAY_TIMINGS === '1' ? timeStatements() : null;
  const central = await startEngine({ database: openDatabaseUrl(url, AS_CENTRAL), nodeKey: randomBytes(32), role: 'central' });
  try {
    const node = await authenticateNode(central, credential);
    let applied = 0;
    let ms = 0;
    timings?.clear();
    for (const page of pages) {
      const started = performance.now();
      const reply = await acceptPushedEvents(central, node, page);
      ms += performance.now() - started;
      applied += reply.results.filter((r) => r.verdict === 'applied').length;
    }
    console.log(JSON.stringify({ database: kind, applied, events_per_s: Math.round((applied / ms) * 1000) }));
    if (timings) for (const [text, { ms: total, runs }] of [...timings].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) console.log(`${total.toFixed(0).padStart(7)} ms ${String(runs).padStart(6)}× ${text}`);
  } finally {
    await central.close();
    rmSync(run, { recursive: true, force: true });
    if (server) {
      await server.admin.query(`drop database if exists ${name} with (force)`);
      await server.admin.end();
    }
  }
}

/** Wraps the drivers' statement calls to add up their time by SQL text (an insert keeps its table's name). */
function timeStatements(): Map<string, { ms: number; runs: number }> {
  const totals = new Map<string, { ms: number; runs: number }>();
  const add = (text: string, started: number) => {
    const table = /insert into "?(\w+)"?/.exec(text)?.[1];
    const key = `${table ? `[${table}] ` : ''}${text.replace(/\s+/g, ' ').slice(0, 100)}`;
    const entry = totals.get(key) ?? { ms: 0, runs: 0 };
    entry.ms += performance.now() - started;
    entry.runs += 1;
    totals.set(key, entry);
  };
  const statement = Object.getPrototypeOf(new BetterSqlite3(':memory:').prepare('select 1')) as Record<string, (...args: unknown[]) => unknown> & { source: string };
  for (const method of ['run', 'all', 'get'] as const) {
    const original = statement[method]!;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        add(this.source, started);
      }
    };
  }
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const started = performance.now();
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string } | undefined)?.text);
    const result = query.apply(this, args);
    if (result instanceof Promise) void result.then(() => add(text, started), () => add(text, started));
    return result;
  } as typeof pg.Client.prototype.query;
  return totals;
}

await (mode === 'record' ? record() : apply());
