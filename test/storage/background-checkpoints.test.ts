import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKSTOP_FRAMES, startCheckpointer } from '../../src/core/storage/checkpointer';
import { openSqlite } from '../../src/core/storage/database';
import type { DB } from '../../src/core/storage/schema';
import { openNodeEngine } from '../../src/server/node/store-node';
import { makeTempDir } from '../support/temp-dir';

// A central node's SQLite file is checkpointed by a worker thread after commits (checkpointer.ts);
// the write connection checkpoints itself only past BACKSTOP_FRAMES.

let dir: ReturnType<typeof makeTempDir>;

beforeEach(() => {
  dir = makeTempDir('punchcard-checkpoints-');
});

afterEach(() => {
  dir.remove();
});

const autocheckpoint = async (db: Kysely<DB>) => Number(Object.values((await sql`pragma wal_autocheckpoint`.execute(db)).rows[0] as object)[0]);

/** One transaction writing ~1,500 WAL frames: past SQLite's own threshold (1,000), short of the backstop. */
async function writeSixMegabytes(db: Kysely<DB>): Promise<void> {
  await sql`create table blobs (id integer primary key, body blob not null)`.execute(db);
  await db.transaction().execute(async (trx) => {
    await sql`insert into blobs (body) with recursive n(x) as (select 1 union all select x + 1 from n where x < 1500) select randomblob(4000) from n`.execute(trx);
  });
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms; await sleep(20)) if (condition()) return true;
  return condition();
}

describe('background checkpoints', () => {
  it('copy a commit into the database file from the worker, while the writer only appends to its WAL', async () => {
    const file = `${dir.path}/central.db`;
    const database = openSqlite(file, { backgroundCheckpoints: true });
    try {
      expect(await autocheckpoint(database.db)).toBe(BACKSTOP_FRAMES);
      const before = statSync(file).size;
      await writeSixMegabytes(database.db);
      // The writer's threshold was not reached, so only the worker can have grown the file.
      expect(await waitFor(() => statSync(file).size > before + 5_000_000)).toBe(true);
    } finally {
      await database.close();
    }
    const reopened = openSqlite(file);
    try {
      const { rows } = await sql<{ n: number }>`select count(*) as n from blobs`.execute(reopened.db);
      expect(Number(rows[0]!.n)).toBe(1500);
    } finally {
      await reopened.close();
    }
  });

  it('end with the database: a process whose last work is closing it exits with code 0', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/write-and-close-central-file.ts', `${dir.path}/closing.db`], { encoding: 'utf8', timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout.trim()).toBe('closed');
  });

  it('fall back to SQLite’s own checkpoints, with a warning, when the worker cannot run', async () => {
    const file = `${dir.path}/fallback.db`;
    const writer = new BetterSqlite3(file);
    try {
      writer.pragma('journal_mode = WAL');
      const warned = new Promise<Error>((resolve) => {
        const listener = (warning: Error) => {
          if (warning.name !== 'PunchcardCheckpointer') return;
          process.off('warning', listener);
          resolve(warning);
        };
        process.on('warning', listener);
      });
      // The worker's connection cannot open: its addon is missing.
      const checkpointer = startCheckpointer(writer, file, `${dir.path}/missing/better_sqlite3.node`);
      const warning = await warned;
      expect(warning.message).toContain('background checkpoints stopped');
      expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      await checkpointer.stop();
    } finally {
      writer.close();
    }
  });

  it('are off by default: the writer checkpoints inside its commits, at SQLite’s threshold', async () => {
    const file = `${dir.path}/store.db`;
    const database = openSqlite(file);
    try {
      expect(await autocheckpoint(database.db)).toBe(1000);
      const before = statSync(file).size;
      await writeSixMegabytes(database.db);
      // No waiting: the commit itself copied the pages.
      expect(statSync(file).size).toBeGreaterThan(before + 5_000_000);
    } finally {
      await database.close();
    }
  });

  it('are what a central node opens its SQLite file with; a store keeps SQLite’s own', async () => {
    const central = await openNodeEngine({ dataDir: `${dir.path}/central`, role: 'central', installCapture: false });
    const store = await openNodeEngine({ dataDir: `${dir.path}/store`, installCapture: false });
    try {
      expect(await autocheckpoint(central.db)).toBe(BACKSTOP_FRAMES);
      expect(await autocheckpoint(store.db)).toBe(1000);
    } finally {
      await central.close();
      await store.close();
    }
  });
});
