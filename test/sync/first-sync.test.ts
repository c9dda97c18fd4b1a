import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { closeSession } from '../../src/core/onscreen/close-session';
import { checkIn } from '../../src/core/onscreen/check-in';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { compactChangeLog } from '../../src/core/sync/central/compact-change-log';
import type { SyncTransport } from '../../src/core/sync/store/sync-client';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairStore, startCentral } from './support/chain';

// A store's first sync: while the chain's customers are still arriving, a customer it does not
// know yet is "not here yet" (503 first_sync_in_progress), never "unknown" (which would have the
// cashier register them twice); and central's log, compacted, brings a new store the same state.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

/** A link whose pulls fail after `budget` pages (the first sync stops half-way). */
class PullBudget implements SyncTransport {
  constructor(
    private readonly inner: SyncTransport,
    public budget: number,
  ) {}
  push: SyncTransport['push'] = (r) => this.inner.push(r);
  pull: SyncTransport['pull'] = (after, limit) => {
    if (this.budget <= 0) return Promise.reject(new Error('network: down'));
    this.budget -= 1;
    return this.inner.pull(after, limit);
  };
}

async function customersAtCentral(central: CentralHandle, count: number): Promise<string[]> {
  const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
  const emails = Array.from({ length: count }, (_, i) => `c${String(i).padStart(3, '0')}@chain.test`);
  for (const email of emails) await registerInStore(central.engine, scope, { email });
  return emails;
}

const codeOf = (error: unknown) => (isServiceError(error) ? error.code : String(error));

describe('first sync', () => {
  it('refuses to call a customer unknown, or to register one, until the chain’s customers have arrived', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const emails = await customersAtCentral(central, 120);
    let link: PullBudget | null = null;
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => (link = new PullBudget(central.transportFor(credential), 2)), undefined, { firstSync: false });
    open.push(store);
    await expect(store.client.syncOnce()).rejects.toThrow('network: down');
    expect(store.engine.centralLink.firstSyncDone).toBe(false);
    const scope = await store.scope();

    // Someone who has arrived checks in; someone still on the way is "not here yet", as is a registration.
    await expect(checkIn(store.engine, scope, { identification: emails[0]! })).resolves.toMatchObject({ session: { status: 'active' } });
    expect(codeOf(await checkIn(store.engine, scope, { identification: emails[119]! }).catch((e: unknown) => e))).toBe('first_sync_in_progress');
    expect(codeOf(await registerInStore(store.engine, scope, { email: 'new@chain.test' }).catch((e: unknown) => e))).toBe('first_sync_in_progress');
    expect(codeOf(await placeOrder(store.engine, scope, { identification: emails[119]!, receiptNumber: 'R-1', subtotal: 5 }).catch((e: unknown) => e))).toBe('first_sync_in_progress');

    // Once the first sync is through, the last customer checks in and a stranger is really unknown.
    link!.budget = 1_000;
    await store.client.syncOnce();
    expect(store.engine.centralLink.firstSyncDone).toBe(true);
    await expect(checkIn(store.engine, scope, { identification: emails[119]! })).resolves.toMatchObject({ session: { status: 'active' } });
    expect(codeOf(await checkIn(store.engine, scope, { identification: 'stranger@chain.test' }).catch((e: unknown) => e))).toBe('customer_not_found');
  });

  it('a compacted log keeps each row’s first and newest change, and a new store gets the same chain from it', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const [email] = await customersAtCentral(central, 1);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    // Five visits: each opens a check-in, earns, and closes it.
    for (let visit = 0; visit < 5; visit += 1) {
      clock.advance(3_600_000);
      const { session } = await checkIn(central.engine, scope, { identification: email! });
      await placeOrder(central.engine, scope, { identification: email!, receiptNumber: `V-${visit}`, subtotal: 10 });
      await closeSession(central.engine, scope, session.hash).catch(() => undefined);
    }
    const logSize = async () => Number((await central.engine.db.selectFrom('sync_changes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await logSize();
    const removed = await compactChangeLog(central.engine.db);
    expect(removed).toBeGreaterThan(0);
    expect(await logSize()).toBe(before - removed);
    // Each row now has at most two changes in the log.
    const perRow = await central.engine.db.selectFrom('sync_changes').select(['tbl', 'row_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['tbl', 'row_id']).execute();
    expect(Math.max(...perRow.map((r) => Number(r.n)))).toBeLessThanOrEqual(2);
    expect(await compactChangeLog(central.engine.db)).toBe(0);

    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => central.transportFor(credential));
    open.push(store);
    const state = async (db: CentralHandle['engine']['db']) => ({
      sessions: (await db.selectFrom('pos_sessions').select(['id', 'status', 'closed_reason']).orderBy('id').execute()).map((r) => `${r.id}:${r.status}:${r.closed_reason}`),
      orders: (await db.selectFrom('orders').select(['id', 'status']).orderBy('id').execute()).map((r) => `${r.id}:${r.status}`),
      balances: (await db.selectFrom('ledger_accounts').select(['holder_id', 'currency_id', 'balance']).orderBy('holder_id').orderBy('currency_id').execute()).map((r) => `${r.holder_id}:${r.currency_id}:${r.balance}`),
      memberships: (await db.selectFrom('user_vendors').select(['user_id', 'updated_at']).orderBy('user_id').execute()).map((r) => `${r.user_id}:${r.updated_at}`),
    });
    expect(await state(store.engine.db)).toEqual(await state(central.engine.db));
    expect((await state(store.engine.db)).orders).toHaveLength(5);
  });
});
