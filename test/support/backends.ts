import { randomBytes } from 'node:crypto';
import { type Engine, startEngine } from '../../src/core/engine';
import { type Database, openSqlite } from '../../src/core/storage/database';
import type { VendorSetUp } from '../../src/core/tenancy/set-up-vendor';
import type { ManualClock } from './clock';
import { openTestPostgres } from './postgres';
import { makeTempDir } from './temp-dir';

// The two databases every storage rule is proved on: an SQLite file, and PostgreSQL (the server at
// PG_URL, else an embedded PGlite). `describe.each(BACKENDS)` runs a suite on both.

export interface Backend {
  name: string;
  open(): Promise<{ database: Database; close(): Promise<void> }>;
}

export const sqliteBackend: Backend = {
  name: 'sqlite',
  async open() {
    const dir = makeTempDir();
    return { database: openSqlite(`${dir.path}/punchcard.db`), close: async () => dir.remove() };
  },
};

export const postgresBackend: Backend = {
  name: process.env.PG_URL ? 'postgres (PG_URL)' : 'postgres (embedded PGlite)',
  async open() {
    const pg = await openTestPostgres();
    return { database: pg.database, close: () => pg.drop() };
  },
};

export const BACKENDS: readonly Backend[] = [sqliteBackend, postgresBackend];

/** An engine (migrated) on a fresh database of `backend`; close() closes both. */
export async function openEngine(backend: Backend, clock: ManualClock): Promise<{ engine: Engine; close(): Promise<void> }> {
  const opened = await backend.open();
  const engine = await startEngine({ database: opened.database, nodeKey: randomBytes(32), clock, role: 'store' });
  return {
    engine,
    close: async () => {
      await engine.close();
      await opened.close();
    },
  };
}

/** A vendor like `punchcard init` makes: USD quick pay, a US store. */
export function testVendor(name: string): VendorSetUp {
  return { name, currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } };
}
