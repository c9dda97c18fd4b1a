import { linkSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, migrateToLatest, openSqlite } from '../../src/core/storage/database';
import { migrations } from '../../src/core/storage/migrations/index';
import { jsonLines, launch, type Running, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// Two processes making one new SQLite database (database.ts buildAside, fresh-file.ts): each
// builds its own <file>.building-<pid> and links it into place; the loser's link fails and it
// opens the winner's file, even one it opened meanwhile. And a build's second name left by a power
// cut between the link and the unlink is removed at the next open, whatever its pid; a live
// process's build is kept.

let dir: ReturnType<typeof makeTempDir>;

beforeEach(() => {
  dir = makeTempDir('punchcard-fresh-together-');
});

afterEach(() => dir.remove());

const leftovers = () => readdirSync(dir.path).filter((name) => name.includes('.building'));

async function migrated(file: string): Promise<Database> {
  const database = openSqlite(file);
  await migrateToLatest(database.db);
  return database;
}

async function writers(file: string): Promise<string[]> {
  const database = await migrated(file);
  const rows = await database.db.selectFrom('node_meta').select('key').where('key', 'like', 'writer-%').orderBy('key').execute();
  await database.close();
  return rows.map((row) => row.key);
}

/** A process that ended: its pid names no process now. */
async function pidOfEndedProcess(): Promise<number> {
  const child = launch([''], '--eval');
  await child.exited;
  return child.child.pid!;
}

describe('several processes opening one new database at once', () => {
  it('each opens the one database: one link wins, the others drop their build and open it', async () => {
    const processes = 3;
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const file = `${dir.path}/round-${round}.db`;
      const go = `${dir.path}/go-${round}`;
      const children: Running[] = Array.from({ length: processes }, () => launch(['tsx', 'test/support/open-new-database-together.ts', file, go], '--import'));
      for (const child of children) await waitFor('the child ready', () => (child.stdout().includes('ready') ? true : undefined), child, 60_000);
      writeFileSync(go, '');
      const ended = await Promise.all(children.map((child) => child.exited));
      children.forEach((child, index) => expect({ ...ended[index], stderr: child.stderr() }).toEqual({ code: 0, signal: null, stderr: '' }));
      const reports = children.map((child) => jsonLines(child.stdout())[0] as { link: string; ino: number });
      // One name made, by one process; the others lost the link or found the file there.
      expect(reports.filter((report) => report.link === 'won')).toHaveLength(1);
      expect(new Set(reports.map((report) => report.ino))).toEqual(new Set([statSync(file).ino]));
      outcomes.push(...reports.map((report) => report.link));
      // No build is left beside it (looked at before an open would remove one), and every
      // process wrote in the one database.
      expect(leftovers()).toEqual([]);
      expect(await writers(file)).toEqual(children.map((child) => `writer-${child.child.pid}`).sort());
    }
    // The loser's way was taken (the builds overlapped), else this proved nothing.
    expect(outcomes).toContain('lost');
  }, 240_000);
});

describe('another process linking first while this one builds', () => {
  it('this one opens that database meanwhile without touching its own build, which then drops it', async () => {
    const file = `${dir.path}/punchcard.db`;
    const theirs = `${dir.path}/theirs/punchcard.db`;
    mkdirSync(`${dir.path}/theirs`);
    await (await migrated(theirs)).close();
    // Half-way through this build, the other process's database appears and this one opens it.
    let second: Database | undefined;
    const snapshot = migrations['0020-snapshot']!;
    migrations['0020-snapshot'] = {
      up: async (db) => {
        linkSync(theirs, file);
        second = openSqlite(file);
        await snapshot.up(db);
      },
    };
    const first = openSqlite(file);
    try {
      await migrateToLatest(first.db);
    } finally {
      migrations['0020-snapshot'] = snapshot;
    }
    await migrateToLatest(second!.db);
    await first.db.insertInto('node_meta').values({ key: 'probe', value: 'in theirs' }).execute();
    expect(statSync(file).ino).toBe(statSync(theirs).ino);
    expect(leftovers()).toEqual([]);
    await first.close();
    await second!.close();
  });
});

describe('a power cut between the link and the unlink', () => {
  it('leaves a second name of the database: the next open removes it, whatever its pid; a live build is kept', async () => {
    const file = `${dir.path}/punchcard.db`;
    await (await migrated(file)).close();
    // The build's name, still a link to the database: of a process gone, and of a pid that runs
    // again after the restart (this one's parent: alive, not building).
    const gone = await pidOfEndedProcess();
    linkSync(file, `${file}.building-${gone}`);
    linkSync(file, `${file}.building-${process.ppid}`);
    // A build really running in another (live) process: its own file, not the database.
    const building = launch(['setInterval(() => {}, 1000)'], '--eval');
    writeFileSync(`${file}.building-${building.child.pid}`, 'SQLite format 3\0 being built');
    try {
      const database = openSqlite(file);
      await database.db.insertInto('node_meta').values({ key: 'probe', value: 'after the cut' }).execute();
      expect(leftovers()).toEqual([`punchcard.db.building-${building.child.pid}`]);
      expect(statSync(file).nlink).toBe(1);
      expect((await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table'`.execute(database.db)).rows[0]!.n).toBeGreaterThan(50);
      await database.close();
    } finally {
      building.child.kill('SIGKILL');
      await building.exited;
    }
  });

  it('a crashed build beside an existing database is removed at its next open once its pid is gone', async () => {
    const file = `${dir.path}/punchcard.db`;
    await (await migrated(file)).close();
    // A loser killed mid-build while the winner linked: nothing but an open looks again.
    const gone = await pidOfEndedProcess();
    writeFileSync(`${file}.building-${gone}`, 'SQLite format 3\0 cut short');
    writeFileSync(`${file}.building-${gone}-journal`, 'not a journal');
    const database = await migrated(file);
    expect(leftovers()).toEqual([]);
    await database.close();
  });
});
