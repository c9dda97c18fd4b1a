import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { prepared } from '../../src/core/storage/prepared';
import { readerOf } from '../../src/core/storage/reader';
import { recentOrdersQuery } from '../../src/core/onscreen/retrieve-customer';
import { queryPlan } from '../support/query-plan';
import { makeTempDir } from '../support/temp-dir';

// Issue 13: on SQLite a prepared query's constants are written into its SQL, and the read
// connection builds rows from raw arrays. Both are invisible: the rows are those Kysely reads.

let dir: ReturnType<typeof makeTempDir>;
let engine: Engine;

beforeEach(async () => {
  dir = makeTempDir('punchcard-prepared-');
  engine = await startEngine({ database: openSqlite(`${dir.path}/node.db`), nodeKey: randomBytes(32), role: 'store' });
  await engine.db
    .insertInto('node_meta')
    .values([
      { key: 'a', value: "it's" },
      { key: 'b', value: 'plain' },
      { key: 'c', value: 'plain' },
    ])
    .execute();
});

afterEach(async () => {
  await engine.close();
  dir.remove();
});

describe('prepared reads on SQLite', () => {
  it('a constant string (quotes included) and a constant limit read what Kysely reads', async () => {
    const build = (db: Engine['db'], key: string) => db.selectFrom('node_meta').select(['key', 'value']).where('value', 'in', ["it's", 'plain']).where('key', '>=', key).where('value', '!=', "it''s").orderBy('key').limit(2);
    const read = prepared(build);
    const expected = await build(engine.db, 'a').execute();
    expect(expected).toEqual([
      { key: 'a', value: "it's" },
      { key: 'b', value: 'plain' },
    ]);
    expect(readerOf(engine.db)).toBeDefined();
    expect(await read(engine.db, 'a')).toEqual(expected);
    expect(await read(engine.db, 'b')).toEqual(await build(engine.db, 'b').execute());
    // Inside a transaction (Kysely's connection, not the reader): the same.
    expect(await engine.db.transaction().execute((trx) => read(trx, 'a'))).toEqual(expected);
  });

  it('rows keep the column order, a repeated name keeps its last value, nulls stay null', async () => {
    const read = prepared((db, key: string) =>
      db
        .selectFrom('node_meta as m')
        .select(['m.value', 'm.key', sql<null>`null`.as('nothing'), sql<string>`'first'`.as('dup')])
        .select(sql<string>`'second'`.as('dup'))
        .where('m.key', '=', key),
    );
    const [row] = await read(engine.db, 'b');
    expect(Object.keys(row!)).toEqual(['value', 'key', 'nothing', 'dup']);
    expect(row).toEqual({ value: 'plain', key: 'b', nothing: null, dup: 'second' });
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });

  it('a column named __proto__ reads as better-sqlite3 reads it', async () => {
    const read = prepared((db, key: string) => db.selectFrom('node_meta').select(['key', sql<string>`value`.as('__proto__')]).where('key', '=', key));
    const [row] = await read(engine.db, 'b');
    const observer = new BetterSqlite3(`${dir.path}/node.db`, { readonly: true });
    const native = observer.prepare(`select "key", value as "__proto__" from "node_meta" where "key" = 'b'`).get() as object;
    observer.close();
    expect(Object.getOwnPropertyNames(row)).toEqual(Object.getOwnPropertyNames(native));
    expect(Object.getPrototypeOf(row)).toBe(Object.getPrototypeOf(native));
  });

  it('now() reads synchronously on the read connection, and leaves a transaction to the usual run', async () => {
    const read = prepared((db, key: string) => db.selectFrom('node_meta').select('value').where('key', '=', key));
    expect(read.now(engine.db, 'b')).toEqual([{ value: 'plain' }]);
    await engine.db.transaction().execute(async (trx) => {
      expect(read.now(trx, 'b')).toBeUndefined();
      expect(await read(trx, 'b')).toEqual([{ value: 'plain' }]);
    });
  });

  it('inside a transaction (the write connection) rows are built as better-sqlite3 builds them', async () => {
    const native = new BetterSqlite3(`${dir.path}/node.db`, { readonly: true });
    try {
      const text = "select key, value, 'later' as value, 1 as n from node_meta where key = 'a'";
      const inTransaction = await engine.db.transaction().execute(async (trx) => {
        const returned = await trx.insertInto('node_meta').values({ key: 'd', value: 'new' }).returning(['key', 'value']).execute();
        return { returned, read: (await sql.raw(text).execute(trx)).rows, none: await trx.selectFrom('node_meta').selectAll().where('key', '=', 'zz').execute() };
      });
      expect(inTransaction.returned).toEqual([{ key: 'd', value: 'new' }]);
      // A later column of the same name wins, as in better-sqlite3's own objects.
      expect(inTransaction.read).toEqual(native.prepare(text).all());
      expect(inTransaction.read).toEqual([{ key: 'a', value: 'later', n: 1 }]);
      expect(inTransaction.none).toEqual([]);
    } finally {
      native.close();
    }
  });

  it("a customer's last orders are read newest first through an index, not by sorting all of them", async () => {
    const details = await queryPlan(engine.db, recentOrdersQuery(engine.db, 1, 2).compile());
    expect(details).toContain('orders_user_time');
    expect(details).not.toContain('TEMP B-TREE');
  });
});
