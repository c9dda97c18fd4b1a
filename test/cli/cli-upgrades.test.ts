import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabaseUrl } from '../../src/core/storage/database';
import { runInProcess } from '../support/cli-in-process';
import { makeTempDir } from '../support/temp-dir';

// An upgrade in place, as an upgrade run met it: folders and databases older or newer than the
// release that opens them are refused in one line `punchcard: …`, exit 1, changing nothing.

const dirs: Array<{ remove(): void }> = [];
const stragglers: Array<{ kill(): void }> = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const child of stragglers.splice(0)) child.kill();
});
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

function oneLine(result: { code: number; stderr: string }): string {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.split('\n').filter((line) => line.trim().length > 0);
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0]!;
}

async function initFolder(): Promise<string> {
  for (const name of ['PUNCHCARD_NODE_KEY', 'PUNCHCARD_DATABASE_URL']) vi.stubEnv(name, '');
  const dir = makeTempDir('punchcard-upgrade-');
  dirs.push(dir);
  const data = join(dir.path, 'node');
  const init = await runInProcess(['init', '--data', data, '--vendor', 'Cafe Uno', '--json']);
  expect(init.code, init.stderr).toBe(0);
  return data;
}

async function withDatabase(data: string, work: (db: ReturnType<typeof openDatabaseUrl>['db']) => Promise<void>): Promise<void> {
  const database = openDatabaseUrl(join(data, 'punchcard.db'));
  try {
    await work(database.db);
  } finally {
    await database.close();
  }
}

describe('upgrading in place', () => {
  it('a central folder from before folders recorded their database (a key, no database file) is refused without the URL, not started empty', async () => {
    for (const name of ['PUNCHCARD_NODE_KEY', 'PUNCHCARD_DATABASE_URL']) vi.stubEnv(name, '');
    const dir = makeTempDir('punchcard-upgrade-pg-');
    dirs.push(dir);
    mkdirSync(join(dir.path, 'central'));
    writeFileSync(join(dir.path, 'central', 'node.key'), `${'ab'.repeat(32)}\n`, { mode: 0o600 });
    const refused = oneLine(await runInProcess(['central', '--data', join(dir.path, 'central'), '--port', '0']));
    expect(refused).toMatch(/^punchcard: .* holds a node key but no database: for a central on PostgreSQL, set PUNCHCARD_DATABASE_URL/);
    expect(existsSync(join(dir.path, 'central', 'punchcard.db'))).toBe(false);
    expect(existsSync(join(dir.path, 'central', 'node.json'))).toBe(false);
  });

  it('a database a newer release migrated is refused in words, not as "corrupted migrations", and left as it was', async () => {
    const data = await initFolder();
    await withDatabase(data, async (db) => {
      await db.insertInto('schema_migrations' as never).values({ name: '9999-from-the-future', timestamp: new Date().toISOString() } as never).execute();
    });
    const line = oneLine(await runInProcess(['key', '--data', data]));
    expect(line).toMatch(/^punchcard: this database was written by a newer Punchcard \(its change 9999-from-the-future is unknown to version .+\): run that version or a newer one\. Nothing was changed\.$/);
  });

  it('a command of this release does not migrate the database under a running node of an older one', async () => {
    const data = await initFolder();
    // As an older release left it: its last migration not run yet (its record taken out), and its node running.
    let last: { name: string; timestamp: string } | undefined;
    await withDatabase(data, async (db) => {
      last = (await db.selectFrom('schema_migrations' as never).selectAll().orderBy('name' as never, 'desc').limit(1).executeTakeFirstOrThrow()) as { name: string; timestamp: string };
      await db.deleteFrom('schema_migrations' as never).where('name' as never, '=', last.name as never).execute();
    });
    const older = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    stragglers.push(older);
    writeFileSync(join(data, 'node.pid'), `${older.pid}\n`);
    const line = oneLine(await runInProcess(['key', '--data', data]));
    expect(line).toBe(`punchcard: a Punchcard node of an older version (process ${older.pid}) runs on ${data}: stop it and start this version there first (its database needs 1 change this version makes).`);
    await withDatabase(data, async (db) => {
      expect(await db.selectFrom('schema_migrations' as never).select('name' as never).where('name' as never, '=', last!.name as never).execute(), 'migrated under the node').toEqual([]);
      // The record back (the change itself is there): with the node stopped, the command works.
      await db.insertInto('schema_migrations' as never).values(last as never).execute();
    });
    older.kill();
    await new Promise((resolve) => older.once('exit', resolve));
    const key = await runInProcess(['key', '--data', data]);
    expect(key.code, key.stderr).toBe(0);
  });
});
