import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { getMeta } from '../../src/core/storage/node-meta';
import { COMPACTED_THROUGH, compactChangeLog, compactChangeLogStep } from '../../src/core/sync/central/compact-change-log';
import { ManualClock } from '../support/clock';
import { type CentralHandle, startCentral } from './support/chain';

// Central's log compaction goes forward in windows of seqs from where it stopped (docs/sync.md,
// "Compaction"): each window is a short statement, and a row changed after a compaction still
// loses its versions in between at the next one, however old its first change.

const open: CentralHandle[] = [];
afterEach(async () => {
  for (const handle of open.splice(0)) await handle.close();
});

describe('change log compaction', () => {
  it('goes window by window from where it stopped; a row changed later loses its versions in between, its first and newest stay', async () => {
    const central = await startCentral(new ManualClock());
    open.push(central);
    const db = central.engine.db;
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const ids: number[] = [];
    for (let i = 0; i < 4; i += 1) ids.push(Number((await registerInStore(central.engine, scope, { email: `w${i}@chain.test` })).session.user_id));
    const rename = async (id: number, name: string) => void (await db.updateTable('users').set({ first_name: name }).where('id', '=', id).execute());
    const versions = async (id: number) => (await db.selectFrom('sync_changes').select(['seq', 'data']).where('tbl', '=', 'users').where('row_id', '=', id).orderBy('seq').execute()).map((c) => JSON.parse(c.data).first_name as string | null);
    const head = async () => Number((await db.selectFrom('sync_changes').select((eb) => eb.fn.max('seq').as('n')).executeTakeFirstOrThrow()).n);
    for (const name of ['A1', 'A2', 'A3']) await rename(ids[0]!, name);
    const firstHead = await head();

    // Windows of 5 seqs: each step moves the mark by at most 5, and the last reaches the head.
    let steps = 0;
    let removed = 0;
    for (;;) {
      const before = Number((await getMeta(db, COMPACTED_THROUGH)) ?? 0);
      const step = await compactChangeLogStep(db, 5);
      const after = Number(await getMeta(db, COMPACTED_THROUGH));
      expect(after - before).toBeGreaterThan(0);
      expect(after - before).toBeLessThanOrEqual(5);
      steps += 1;
      removed += step.removed;
      if (step.done) break;
    }
    expect(steps).toBeGreaterThan(1);
    expect(Number(await getMeta(db, COMPACTED_THROUGH))).toBe(firstHead);
    expect(removed).toBe(2); // A1 and A2 went between the registration and A3
    expect((await versions(ids[0]!)).slice(-1)).toEqual(['A3']);
    expect(await versions(ids[0]!)).toHaveLength(2);
    expect(await compactChangeLogStep(db, 5)).toEqual({ removed: 0, done: true });

    // After the mark: a customer registered before it, renamed twice now (their first change is
    // in a window already passed), and one renamed once (two versions: nothing to remove).
    await rename(ids[1]!, 'B1');
    await rename(ids[1]!, 'B2');
    await rename(ids[2]!, 'C1');
    const unchanged = await versions(ids[3]!);
    expect(await compactChangeLog(db)).toBe(1);
    expect(await versions(ids[1]!)).toHaveLength(2);
    expect((await versions(ids[1]!)).slice(-1)).toEqual(['B2']);
    expect(await versions(ids[2]!)).toHaveLength(2);
    expect(await versions(ids[3]!)).toEqual(unchanged);
    expect(Number(await getMeta(db, COMPACTED_THROUGH))).toBe(await head());
    // Every row keeps its first change and its newest: at most two each.
    const perRow = await db.selectFrom('sync_changes').select(['tbl', 'row_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['tbl', 'row_id']).execute();
    expect(Math.max(...perRow.map((r) => Number(r.n)))).toBeLessThanOrEqual(2);
  });
});
