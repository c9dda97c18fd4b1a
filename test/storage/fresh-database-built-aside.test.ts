import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, migrateToLatest, openSqlite } from '../../src/core/storage/database';
import { migrations } from '../../src/core/storage/migrations/index';
import { launch, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// A new SQLite database is built aside (<file>.building-<pid>, no fsyncs) and moved into place
// whole (database.ts, fresh-file.ts): the same database as one migrated in place, never a half-made
// one under the real name after a crash, and an existing file is opened where it is.

let dir: ReturnType<typeof makeTempDir>;

beforeEach(() => {
  dir = makeTempDir('punchcard-fresh-database-');
});

afterEach(() => dir.remove());

async function migrated(file: string): Promise<Database> {
  const database = openSqlite(file);
  await migrateToLatest(database.db);
  return database;
}

/** Its schema and every table's rows (the migrations' run times aside: they differ by run). */
async function contentOf(database: Database): Promise<Record<string, unknown>> {
  const schema = (await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`select type, name, tbl_name, sql from sqlite_master order by type, name`.execute(database.db)).rows;
  const settings = await Promise.all(['user_version', 'page_size', 'auto_vacuum', 'encoding'].map(async (name) => (await sql.raw(`pragma ${name}`).execute(database.db)).rows));
  const content: Record<string, unknown> = { schema, settings };
  for (const { name } of schema.filter((entry) => entry.type === 'table')) {
    const columns = name === 'schema_migrations' ? 'name' : '*';
    content[name] = (await sql.raw(`select ${columns} from "${name}" order by 1`).execute(database.db)).rows;
  }
  return content;
}

/** The files of this database (with its -wal, -shm) this process holds open. */
function filesHeldOpen(file: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(file));
}

const leftovers = () => readdirSync(dir.path).filter((name) => name.includes('.building'));

describe('a new SQLite database', () => {
  it('comes out identical to one migrated in place: schema and every row', async () => {
    // The old way: an existing (empty) file, migrated statement by statement where it is.
    closeSync(openSync(`${dir.path}/in-place.db`, 'w', 0o600));
    const inPlace = await migrated(`${dir.path}/in-place.db`);
    const aside = await migrated(`${dir.path}/aside.db`);
    const expected = await contentOf(inPlace);
    expect((expected.schema as unknown[]).length).toBeGreaterThan(100);
    expect(expected.id_sequences).not.toEqual([]);
    expect(await contentOf(aside)).toEqual(expected);
    await inPlace.close();
    await aside.close();
  });

  it('is moved into place whole: WAL, owner-only, nothing left beside it, and it works', async () => {
    const file = `${dir.path}/punchcard.db`;
    const database = openSqlite(file);
    await migrateToLatest(database.db);
    expect(leftovers()).toEqual([]);
    // Byte 18 of the header: 2 once the file is in WAL mode.
    expect(readFileSync(file)[18]).toBe(2);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await sql<{ journal_mode: string }>`pragma journal_mode`.execute(database.db)).rows[0]!.journal_mode).toBe('wal');
    expect((await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db)).rows[0]!.synchronous).toBe(2);
    await database.db.insertInto('node_meta').values({ key: 'probe', value: 'written' }).execute();
    // Its write and read connections, on the file under its name (the aside one's closed).
    expect(filesHeldOpen(file).filter((path) => path === file)).toHaveLength(2);
    expect(filesHeldOpen(file).filter((path) => path.includes('.building'))).toEqual([]);
    await database.close();
    expect(filesHeldOpen(file)).toEqual([]);
    const reopened = openSqlite(file);
    expect((await reopened.db.selectFrom('node_meta').select('value').where('key', '=', 'probe').executeTakeFirst())?.value).toBe('written');
    await reopened.close();
  });

  it('two opens of the same new file at once in one process build it once', async () => {
    const file = `${dir.path}/twice.db`;
    const [first, second] = [openSqlite(file), openSqlite(file)];
    await Promise.all([migrateToLatest(first.db), migrateToLatest(second.db)]);
    expect(leftovers()).toEqual([]);
    const tables = async (database: Database) => (await sql`select count(*) as n from sqlite_master`.execute(database.db)).rows;
    expect(await tables(first)).toEqual(await tables(second));
    await first.close();
    await second.close();
  });
});

describe('an existing SQLite database', () => {
  it('is opened in place: same inode, no aside copy', async () => {
    const file = `${dir.path}/punchcard.db`;
    await (await migrated(file)).close();
    const inode = statSync(file).ino;
    const reopened = await migrated(file);
    await reopened.db.insertInto('node_meta').values({ key: 'probe', value: 'x' }).execute();
    expect(statSync(file).ino).toBe(inode);
    expect(leftovers()).toEqual([]);
    // Opened once (a write and a read connection), and all of it closed by close().
    expect(filesHeldOpen(file).filter((path) => path === file)).toHaveLength(2);
    await reopened.close();
    expect(filesHeldOpen(file)).toEqual([]);
  });
});

describe('a build that did not finish', () => {
  it('killed with SIGKILL half-way, leaves no database under the name; the next open discards it and builds a whole one', async () => {
    const file = `${dir.path}/punchcard.db`;
    const child = launch(['tsx', 'test/support/build-fresh-database-then-hang.ts', file], '--import');
    await waitFor('the build half-way', () => (child.stdout().includes('midway') ? true : undefined), child, 60_000);
    child.child.kill('SIGKILL');
    await child.exited;
    // Its first nineteen migrations are in the aside file; nothing is under the database's name.
    expect(leftovers()).toContain(`punchcard.db.building-${child.child.pid}`);
    expect(readdirSync(dir.path).filter((name) => name.startsWith('punchcard.db') && !name.includes('.building'))).toEqual([]);

    const database = await migrated(file);
    expect(leftovers()).toEqual([]);
    const reference = await migrated(`${dir.path}/reference.db`);
    expect(await contentOf(database)).toEqual(await contentOf(reference));
    await reference.close();
    await database.close();
  }, 90_000);

  it('a migration that fails leaves nothing under the name, and the next open builds a whole one', async () => {
    const file = `${dir.path}/punchcard.db`;
    const snapshot = migrations['0020-snapshot']!;
    migrations['0020-snapshot'] = {
      up: () => Promise.reject(new Error('disk full, say')),
    };
    const failing = openSqlite(file);
    try {
      await expect(migrateToLatest(failing.db)).rejects.toThrow('disk full, say');
    } finally {
      migrations['0020-snapshot'] = snapshot;
      await failing.close();
    }
    expect(readdirSync(dir.path)).toEqual([]);
    const database = await migrated(file);
    const reference = await migrated(`${dir.path}/reference.db`);
    expect(await contentOf(database)).toEqual(await contentOf(reference));
    await reference.close();
    await database.close();
  });

  it('a truncated leftover of this very process (a build before a restart with the same pid) is discarded', async () => {
    const file = `${dir.path}/punchcard.db`;
    writeFileSync(`${file}.building-${process.pid}`, 'SQLite format 3\0 cut short');
    writeFileSync(`${file}.building-${process.pid}-journal`, 'not a journal');
    const database = await migrated(file);
    expect(leftovers()).toEqual([]);
    expect((await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table'`.execute(database.db)).rows[0]!.n).toBeGreaterThan(50);
    await database.close();
  });
});
