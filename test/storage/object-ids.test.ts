import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Engine, transact } from '../../src/core/engine';
import { groupCommitStats } from '../../src/core/storage/group-commit';
import { nextObjectId, nextObjectIds, SEQUENCE_SPAN } from '../../src/core/storage/ids';
import { engineOnFile } from '../support/file-engine';

// Issue 13: inside an SQLite write transaction the object sequence is held in memory (read at
// `begin immediate`, its high-water mark written before COMMIT). Proven on a real file, with a
// second connection standing for another process (the CLI) that takes ids from the row.

let node: Awaited<ReturnType<typeof engineOnFile>>;
let engine: Engine;
let outsider: BetterSqlite3.Database;

beforeEach(async () => {
  node = await engineOnFile('punchcard-object-ids-');
  ({ engine, other: outsider } = node);
});

afterEach(() => node.close());

const row = () => Number((outsider.prepare("select value from id_sequences where name = 'objects'").get() as { value: number }).value);
const sequenceOf = (id: number) => id - engine.nodeId * SEQUENCE_SPAN;
const takeIds = (count: number) => (trx: Parameters<Parameters<typeof transact>[1]>[0]) => Promise.all(Array.from({ length: count }, () => nextObjectId(trx, engine.nodeId)));

describe('object ids inside SQLite transactions', () => {
  it('commands of one batch take ids in their order, without gaps, and the row holds the last after the commit', async () => {
    const start = row();
    const before = groupCommitStats(engine.db).batches;
    const taken = await Promise.all([transact(engine, takeIds(2)), transact(engine, takeIds(3)), transact(engine, takeIds(1))]);
    expect(groupCommitStats(engine.db).batches).toBe(before + 1);
    expect(taken.flat().map(sequenceOf)).toEqual([1, 2, 3, 4, 5, 6].map((i) => start + i));
    expect(row()).toBe(start + 6);
  });

  it("a command rolled back to its savepoint gives its ids back to the next command", async () => {
    const start = row();
    const results = await Promise.allSettled([
      transact(engine, takeIds(1)),
      transact(engine, async (trx) => {
        await takeIds(2)(trx);
        throw new Error('refused');
      }),
      transact(engine, takeIds(1)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const ids = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : [])).map(sequenceOf);
    expect(ids).toEqual([start + 1, start + 2]);
    expect(row()).toBe(start + 2);
  });

  it('a transaction that fails whole leaves the row as it was, and its ids are taken again', async () => {
    const start = row();
    await expect(
      engine.db.transaction().execute(async (trx) => {
        await takeIds(3)(trx);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(row()).toBe(start);
    expect((await transact(engine, takeIds(1))).map(sequenceOf)).toEqual([start + 1]);
  });

  it('another process taking ids from the row between two transactions: the next one continues after it', async () => {
    const [first] = await transact(engine, takeIds(1));
    const bump = outsider.prepare("update id_sequences set value = value + 1 where name = 'objects' returning value");
    let theirs = 0;
    for (let i = 0; i < 5; i++) theirs = Number((bump.get() as { value: number }).value);
    const [next] = await transact(engine, takeIds(1));
    expect(sequenceOf(next!)).toBe(theirs + 1);
    expect(theirs).toBe(sequenceOf(first!) + 5);
  });

  it('ids outside a transaction (from the row) and inside one keep creation order', async () => {
    const ids: number[] = [];
    ids.push(await nextObjectId(engine.db, engine.nodeId));
    ids.push(...(await transact(engine, takeIds(2))));
    ids.push(await nextObjectId(engine.db, engine.nodeId));
    ids.push(...(await transact(engine, async (trx) => nextObjectIds(trx, engine.nodeId, 3))));
    ids.push(await nextObjectId(engine.db, engine.nodeId));
    const sequences = ids.map(sequenceOf);
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
    expect(row()).toBe(sequences.at(-1));
  });

  it('a block of ids after single ones in the same transaction does not overlap them', async () => {
    const start = row();
    const ids = await transact(engine, async (trx) => [await nextObjectId(trx, engine.nodeId), ...(await nextObjectIds(trx, engine.nodeId, 4)), await nextObjectId(trx, engine.nodeId)]);
    expect(ids.map(sequenceOf)).toEqual([1, 2, 3, 4, 5, 6].map((i) => start + i));
    expect(row()).toBe(start + 6);
  });
});
