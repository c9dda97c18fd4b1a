import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openSqlite } from '../../src/core/storage/database';
import { makeTempDir } from '../support/temp-dir';

// The settings every node's SQLite write connection runs with, and what they are for.

let dir: ReturnType<typeof makeTempDir>;
let database: Database;

beforeEach(() => {
  dir = makeTempDir('punchcard-sqlite-settings-');
  database = openSqlite(`${dir.path}/node.db`);
});

afterEach(async () => {
  await database.close();
  dir.remove();
});

/** SQLite's temporary files held open by this process (unlinked at once, so "(deleted)"). */
function openTempFiles(): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.includes('etilqs_'));
}

describe('the SQLite write connection', () => {
  it('commits durably in WAL mode with foreign keys enforced', async () => {
    const setting = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(database.db)).rows[0] as object)[0];
    expect(await setting('journal_mode')).toBe('wal');
    expect(await setting('synchronous')).toBe(2); // FULL: an answered sale survives a power cut
    expect(await setting('foreign_keys')).toBe(1);
    expect(await setting('temp_store')).toBe(2); // MEMORY (below)
    expect(await setting('secure_delete')).toBe(2); // FAST (below)
  });

  it('zeroes what a statement deletes: an erased value is not left in the file', async () => {
    const marker = 'zoe.erased.7f3a@example.com';
    await sql`create table people (id integer primary key, email text)`.execute(database.db);
    const some = (prefix: string) => sql`insert into people (email) with recursive n(x) as (select 1 union all select x + 1 from n where x < 50) select printf(${`${prefix}%d@example.com`}, x) from n`;
    // In the middle of its page: a deleted cell there is left as free space, readable unless zeroed.
    await some('before').execute(database.db);
    await sql`insert into people (email) values (${marker})`.execute(database.db);
    await some('after').execute(database.db);
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
    expect(readFileSync(`${dir.path}/node.db`).includes(marker)).toBe(true);
    await sql`delete from people where email = ${marker}`.execute(database.db);
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
    expect(readFileSync(`${dir.path}/node.db`).includes(marker)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('keeps statement journals in memory: a big statement does not turn the rest of its transaction into temp-file writes', async () => {
    await sql`create table t (id integer primary key, v text not null)`.execute(database.db);
    // A trigger makes every statement on t one that can fail midway, so each keeps a statement journal.
    await sql`create trigger t_touched after update on t begin select 1; end`.execute(database.db);
    await sql`insert into t (v) with recursive n(x) as (select 1 union all select x + 1 from n where x < 5000) select printf('%0200d', x) from n`.execute(database.db);
    const seen = await database.db.transaction().execute(async (trx) => {
      // About a megabyte of pages journaled by one statement: far past the in-memory buffer.
      await sql`update t set v = v || 'x'`.execute(trx);
      await sql`update t set v = v || 'y' where id = 1`.execute(trx);
      return openTempFiles();
    });
    expect(seen).toEqual([]);
    expect(Number((await sql<{ n: number }>`select count(*) as n from t where v like '%xy'`.execute(database.db)).rows[0]!.n)).toBe(1);
  });
});
