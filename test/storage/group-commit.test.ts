import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Engine, transact } from '../../src/core/engine';
import { isTransientFailure } from '../../src/core/storage/errors';
import { groupCommitStats } from '../../src/core/storage/group-commit';
import { prepared, preparedInsert } from '../../src/core/storage/prepared';
import { inOneSnapshot, readerOf } from '../../src/core/storage/reader';
import { versionOf } from '../../src/core/program-cache/program-data';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ServiceError } from '../../src/shared/errors';
import { engineOnFile } from '../support/file-engine';

// Issue 13: on SQLite, commands that arrive together share one transaction (one fsync), each in its
// own savepoint. Proven on a real file, with a second connection as the outside observer (it sees
// only what was committed). Hot-path reads outside a transaction use the node's read connection. The kill -9 guarantee under batched orders: test/hardening/crash.test.ts.

let node: Awaited<ReturnType<typeof engineOnFile>>;
let engine: Engine;
let observer: BetterSqlite3.Database;

beforeEach(async () => {
  node = await engineOnFile('punchcard-group-commit-', { readonly: true });
  ({ engine, other: observer } = node);
});

afterEach(() => node.close());

const committed = (key: string) => observer.prepare('select value from node_meta where key = ?').get(key) !== undefined;
const write = (key: string) => (trx: Parameters<Parameters<typeof transact>[1]>[0]) => trx.insertInto('node_meta').values({ key, value: 'x' }).execute();

describe('group commit on SQLite', () => {
  it('commands arriving together share one transaction; a failing one is rolled back alone', async () => {
    const before = groupCommitStats(engine.db);
    const results = await Promise.allSettled([
      transact(engine, async (trx) => {
        await write('first')(trx);
        return 'first done';
      }),
      transact(engine, async (trx) => {
        await write('failing')(trx);
        throw new ServiceError('insufficient_balance');
      }),
      transact(engine, async (trx) => {
        await write('third')(trx);
        return 'third done';
      }),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 'first done' });
    expect(results[1].status).toBe('rejected');
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ServiceError);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('insufficient_balance');
    expect(results[2]).toEqual({ status: 'fulfilled', value: 'third done' });
    expect([committed('first'), committed('failing'), committed('third')]).toEqual([true, false, true]);
    const after = groupCommitStats(engine.db);
    expect(after.batches - before.batches).toBe(1);
    expect(after.commands - before.commands).toBe(3);
  });

  it('prepared statements of a command run inside its savepoint on the write connection: rolled back with it, seen by its own reads', async () => {
    const insertMeta = preparedInsert('node_meta');
    const metaByKey = prepared((db, key: string) => db.selectFrom('node_meta').select('value').where('key', '=', key));
    const results = await Promise.allSettled([
      transact(engine, async (trx) => {
        await insertMeta(trx, { key: 'kept', value: 'x' });
        return metaByKey(trx, 'kept');
      }),
      transact(engine, async (trx) => {
        await insertMeta(trx, { key: 'undone', value: 'x' });
        expect(await metaByKey(trx, 'undone')).toEqual([{ value: 'x' }]);
        throw new Error('no');
      }),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: [{ value: 'x' }] });
    expect(results[1].status).toBe('rejected');
    expect(committed('kept')).toBe(true);
    expect(committed('undone')).toBe(false);
  });

  it('a command fails with its own SQL error (a unique violation) and its neighbours commit', async () => {
    await transact(engine, write('taken'));
    const results = await Promise.allSettled([transact(engine, write('a')), transact(engine, write('taken')), transact(engine, write('b'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([committed('a'), committed('b')]).toEqual([true, true]);
  });

  it('a command marked alone (a push at central) takes a transaction of its own in its turn, without a savepoint, and fails whole', async () => {
    const before = groupCommitStats(engine.db);
    // Whether the writer's savepoint is open around the command (put back at once when it is).
    const savepointOf = async (trx: Parameters<Parameters<typeof transact>[1]>[0]) =>
      sql`release command`.execute(trx).then(
        async () => {
          await sql`savepoint command`.execute(trx);
          return 'inside a savepoint';
        },
        () => 'no savepoint',
      );
    const seen: string[] = [];
    const results = await Promise.allSettled([
      transact(engine, async (trx) => {
        await write('before')(trx);
        seen.push(`before: ${await savepointOf(trx)}`);
      }),
      transact(
        engine,
        async (trx) => {
          await write('alone')(trx);
          seen.push(`alone: ${await savepointOf(trx)}`);
        },
        { alone: true },
      ),
      transact(
        engine,
        async (trx) => {
          await write('alone failing 1')(trx);
          await write('alone failing 2')(trx);
          throw new ServiceError('insufficient_balance');
        },
        { alone: true },
      ),
      transact(engine, write('after')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(seen).toEqual(['before: inside a savepoint', 'alone: no savepoint']);
    expect([committed('before'), committed('alone'), committed('alone failing 1'), committed('alone failing 2'), committed('after')]).toEqual([true, true, false, false, true]);
    // In turn: the one before, each alone command, and the one after are four transactions.
    expect(groupCommitStats(engine.db).batches - before.batches).toBe(4);
  });

  it('a command settles only after the commit of its batch', async () => {
    const settled: string[] = [];
    const seenInsideLater: Array<{ settled: boolean; committed: boolean }> = [];
    const commands = Array.from({ length: 20 }, (_, i) =>
      transact(engine, async (trx) => {
        if (i > 0) seenInsideLater.push({ settled: settled.includes(`k${i - 1}`), committed: committed(`k${i - 1}`) });
        await write(`k${i}`)(trx);
      }).then(() => {
        // At the moment a command's caller hears back, its write is visible to another connection.
        expect(committed(`k${i}`)).toBe(true);
        settled.push(`k${i}`);
      }),
    );
    await Promise.all(commands);
    expect(settled).toHaveLength(20);
    // While later commands of the batch ran, the earlier ones were neither answered nor durable.
    expect(seenInsideLater.length).toBe(19);
    expect(seenInsideLater.every((s) => !s.settled && !s.committed)).toBe(true);
  });

  it('a hot-path read outside the transaction (the read connection) sees committed state only, without waiting', async () => {
    const metaByKey = prepared((db, key: string) => db.selectFrom('node_meta').select('value').where('key', '=', key));
    let readDuringBatch: unknown[] | null = null;
    await transact(engine, async (trx) => {
      await write('pending')(trx);
      // Inside the transaction its own write is visible; from the root handle it is not yet.
      expect(await trx.selectFrom('node_meta').select('value').where('key', '=', 'pending').execute()).toHaveLength(1);
      readDuringBatch = await metaByKey(engine.db, 'pending');
    });
    expect(readDuringBatch).toEqual([]);
    expect(await metaByKey(engine.db, 'pending')).toEqual([{ value: 'x' }]);
  });

  it('reads made together (one read transaction) see committed state, and the transaction ends with them', async () => {
    const metaByKey = prepared((db, key: string) => db.selectFrom('node_meta').select('value').where('key', '=', key));
    await transact(engine, write('before'));
    const [a, b] = await inOneSnapshot(engine.db, () => Promise.all([metaByKey(engine.db, 'before'), metaByKey(engine.db, 'after')]));
    expect(a).toEqual([{ value: 'x' }]);
    expect(b).toEqual([]);
    // Nothing holds the snapshot: a commit made next is seen by the next read, alone or together.
    await transact(engine, write('after'));
    expect(await metaByKey(engine.db, 'after')).toEqual([{ value: 'x' }]);
    expect(await inOneSnapshot(engine.db, () => metaByKey(engine.db, 'after'))).toEqual([{ value: 'x' }]);
  });

  it('reads of one turn share a snapshot that any write of this node ends: a read after a write or commit always sees it', async () => {
    const metaByKey = prepared((db, key: string) => db.selectFrom('node_meta').select('value').where('key', '=', key));
    // Another process (a second connection) writes between two reads of one turn: the second read
    // still sees the turn's snapshot; the next turn sees the write.
    const outsider = new BetterSqlite3(node.file);
    try {
      expect(await metaByKey(engine.db, 'outside')).toEqual([]);
      outsider.prepare("insert into node_meta (key, value) values ('outside', 'x')").run();
      expect(readerOf(engine.db)!.all('select value from node_meta where key = ?', ['outside'])).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(await metaByKey(engine.db, 'outside')).toEqual([{ value: 'x' }]);
    } finally {
      outsider.close();
    }
    // This node's own writes end the snapshot at once: an autocommit write, then a command.
    expect(await metaByKey(engine.db, 'own')).toEqual([]);
    await engine.db.insertInto('node_meta').values({ key: 'own', value: 'x' }).execute();
    expect(await metaByKey(engine.db, 'own')).toEqual([{ value: 'x' }]);
    expect(await metaByKey(engine.db, 'command')).toEqual([]);
    await transact(engine, write('command'));
    expect(await metaByKey(engine.db, 'command')).toEqual([{ value: 'x' }]);
    // The snapshot ends with the turn: nothing holds the WAL back, a full checkpoint completes.
    expect(await metaByKey(engine.db, 'own')).toEqual([{ value: 'x' }]);
    await new Promise((resolve) => setImmediate(resolve));
    const checkpointer = new BetterSqlite3(node.file);
    try {
      expect(checkpointer.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    } finally {
      checkpointer.close();
    }
  });

  it("a value derived from a snapshot (a vendor's version) is read once per snapshot and never outlives it", async () => {
    const reader = readerOf(engine.db)!;
    let reads = 0;
    const count = () => {
      reads++;
      return (reader.all('select count(*) as n from node_meta', []) as Array<{ n: number }>)[0]!.n;
    };
    const start = reader.once('n', count);
    expect(reader.once('n', count)).toBe(start);
    expect(reads).toBe(1);
    // This node's write ends the snapshot, and the value with it.
    await engine.db.insertInto('node_meta').values({ key: 'one', value: 'x' }).execute();
    expect(reader.once('n', count)).toBe(start + 1);
    expect(reads).toBe(2);
    // So does the end of the turn (another connection's write is seen then).
    const outsider = new BetterSqlite3(node.file);
    try {
      outsider.prepare("insert into node_meta (key, value) values ('two', 'x')").run();
      expect(reader.once('n', count)).toBe(start + 1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(reader.once('n', count)).toBe(start + 2);
      expect(reads).toBe(3);
    } finally {
      outsider.close();
    }
    // The vendor's version: a write of a program table in this turn is seen by the next call.
    const vendor = await setUpVendor(engine, { name: 'V', currency: 'USD', country: 'US', store: { name: 'S', address1: '1 S St', city: 'S' } });
    const before = await versionOf(engine.db, vendor.vendorId);
    expect(await versionOf(engine.db, vendor.vendorId)).toBe(before);
    await engine.db.updateTable('vendors').set({ name: 'W' }).where('id', '=', vendor.vendorId).execute();
    expect(await versionOf(engine.db, vendor.vendorId)).not.toBe(before);
  });

  it('a lone command is not held back: it commits on the next turn of the event loop', async () => {
    const started = performance.now();
    await transact(engine, write('alone'));
    expect(committed('alone')).toBe(true);
    // Not a speed claim (the bench measures that): the writer does not wait for a batch to fill.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('a full disk fails the batch with the disk error (a failure of the moment: 503), and writing resumes once there is room', async () => {
    // SQLite rolls the whole transaction back itself on SQLITE_FULL: no savepoint or transaction is
    // left to roll back, and the error the callers get must still be the disk's, not a rollback's.
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(engine.db)).rows[0]!.page_count);
    await sql.raw(`pragma max_page_count = ${pages + 2}`).execute(engine.db);
    const big = 'x'.repeat(4_000);
    const results = await Promise.allSettled([
      transact(engine, write('small')),
      transact(engine, async (trx) => {
        for (let i = 0; i < 20; i += 1) await trx.insertInto('node_meta').values({ key: `big${i}`, value: big }).execute();
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    for (const result of results) {
      const reason = (result as PromiseRejectedResult).reason as { code?: string };
      expect(reason.code).toBe('SQLITE_FULL');
      expect(isTransientFailure(reason)).toBe(true);
    }
    expect(committed('small')).toBe(false);
    await sql`pragma max_page_count = 1073741823`.execute(engine.db);
    await transact(engine, write('after'));
    expect(committed('after')).toBe(true);
  });
});
