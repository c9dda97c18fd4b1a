import { afterEach, describe, expect, it } from 'vitest';
import { adjustBalance } from '../../src/core/customer-care/adjust-balance';
import type { Engine } from '../../src/core/engine';
import { findBalanceMismatches, holderBalance } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { addOwner } from '../../src/core/staff/add-owner';
import type { Database } from '../../src/core/storage/database';
import { ManualClock } from '../support/clock';
import { type CentralHandle, centralDatabases, pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// A till that fails over between two nodes of its store: it sent a sale to node A, lost the reply,
// and sent it again to node B, which did not know A's copy. Both recorded the sale, both earned and
// spent. One node would have answered the retry with its first reply (orders/receipt-reuse.ts), so
// central keeps B's copy renamed and voids it (sync/central/repeated-sale.ts): every node ends with
// the sale counted once. A different sale on the number, or the same figures a day later, stands.
// Central on SQLite, and on PostgreSQL when PG_URL names a server.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const CENTRALS = centralDatabases((handle) => open.push(handle));

interface Chain {
  clock: ManualClock;
  central: CentralHandle;
  a: StoreHandle & { link: Switch };
  b: StoreHandle & { link: Switch };
  userId: number;
  rewardId: string;
}

/** Central and two nodes of its first store; Vi has 20 points and $10 of quick pay everywhere. */
async function chain(database: Database): Promise<Chain> {
  const clock = new ManualClock(Date.UTC(2026, 10, 2, 9));
  const central = await startCentral(clock, database);
  open.push(central);
  const { vendorId, storeId, apiKey, loyaltyCurrencyId, quickPayCurrencyId } = central.vendor;
  const pair = async () => {
    const handle = await pairStoreBehindSwitch(central, clock, { storeId, apiKey });
    open.push(handle);
    return handle;
  };
  const a = await pair();
  const b = await pair();
  const publicId = async (id: number) => (await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', id).executeTakeFirstOrThrow()).public_id;
  const reward = await createSpendingRule(central.engine, { vendorId }, { name: 'Coffee', cost: 8, currency: await publicId(loyaltyCurrencyId) });
  const registered = await registerInStore(a.engine, await a.scope(), { email: 'vi@example.com', firstName: 'Vi' });
  const userId = Number(registered.session.user_id);
  await placeOrder(a.engine, await a.scope(), { identification: 'vi@example.com', receiptNumber: 'R-1', subtotal: 20 });
  await syncAll([a, b]);
  const { staff } = await addOwner(central.engine, { vendorId, email: 'owner@example.com' });
  const principal = { sessionId: 0, staffId: staff.id, vendorId, email: staff.email, name: staff.name, role: staff.role, storeId: null };
  await adjustBalance(central.engine, principal, userId, { currency: await publicId(quickPayCurrencyId), amount: 1000, reason: 'quick pay for the test' });
  await syncAll([a, b]);
  return { clock, central, a, b, userId, rewardId: reward.publicId };
}

async function syncAll(stores: StoreHandle[], rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round += 1) for (const store of stores) await store.client.syncOnce();
}

const nodesOf = (c: Chain): Array<{ name: string; engine: Engine }> => [
  { name: 'central', engine: c.central.engine },
  { name: 'node A', engine: c.a.engine },
  { name: 'node B', engine: c.b.engine },
];

async function balances(c: Chain, engine: Engine) {
  const of = (currencyId: number) => holderBalance(engine.db, { holderType: 'user', holderId: c.userId, currencyId });
  return { points: await of(c.central.vendor.loyaltyCurrencyId), quickPay: await of(c.central.vendor.quickPayCurrencyId) };
}

const sale = (c: Chain, receiptNumber: string) => ({ identification: 'vi@example.com', receiptNumber, subtotal: 5, quickPay: 4, redemptions: [c.rewardId] });

/** Every node holds the same ledger, with cached balances equal to their entries, and these balances. */
async function expectEverywhere(c: Chain, expected: { points: number; quickPay: number }): Promise<void> {
  const ledgers: number[][] = [];
  for (const node of nodesOf(c)) {
    expect(await findBalanceMismatches(node.engine.db), `${node.name}: cached balances`).toEqual([]);
    expect(await balances(c, node.engine), `${node.name}: Vi's balances`).toEqual(expected);
    ledgers.push((await node.engine.db.selectFrom('ledger_entries').select('id').orderBy('id').execute()).map((e) => Number(e.id)));
  }
  expect(ledgers[1], 'node A: the ledger of central').toEqual(ledgers[0]);
  expect(ledgers[2], 'node B: the ledger of central').toEqual(ledgers[0]);
  const rejected = await c.central.engine.db.selectFrom('sync_verdicts').select(['node_seq', 'code', 'message']).where('verdict', '=', 'rejected').execute();
  expect(rejected).toEqual([]);
}

const ordersOf = (engine: Engine) => engine.db.selectFrom('orders').select(['id', 'receipt_number', 'status']).where('receipt_number', 'like', 'R-7%').orderBy('receipt_number').execute();
const exceptionsOf = (c: Chain) => c.central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject']).orderBy('id').execute();

describe.each(CENTRALS)('a sale sent to two nodes of one store (central on $name)', ({ database }) => {
  it('counts once everywhere: the later copy is kept renamed and voided at central, and a retry answers the standing sale', async () => {
    const c = await chain(await database());
    const first = await placeOrder(c.a.engine, await c.a.scope(), sale(c, 'R-7'));
    const again = await placeOrder(c.b.engine, await c.b.scope(), sale(c, 'R-7'));
    expect([first.status, again.status]).toEqual(['Complete', 'Complete']);
    await syncAll([c.a, c.b]);

    // Both copies counted would leave 20 - 8 - 8 + 5 + 5 points and 1000 - 400 - 400 cents.
    await expectEverywhere(c, { points: 17, quickPay: 600 });
    const expected = [
      { id: Number(first.orderId), receipt_number: 'R-7', status: 'complete' },
      { id: Number(again.orderId), receipt_number: `R-7~${c.b.engine.nodeId}`, status: 'voided' },
    ];
    for (const node of nodesOf(c)) expect((await ordersOf(node.engine)).map((o) => ({ ...o, id: Number(o.id) })), node.name).toEqual(expected);
    expect(await exceptionsOf(c)).toEqual([{ kind: 'sale_repeated', subject: `order ${again.orderId}` }]);
    // Vi's history at B shows the copy and its void beside the sale that stands.
    const history = await c.b.engine.db.selectFrom('transactions').select(['order_id', 'kind', 'status']).where('order_id', 'in', [Number(first.orderId), Number(again.orderId)]).orderBy('id').execute();
    expect(history.map((h) => `${h.order_id === Number(first.orderId) ? 'first' : 'copy'} ${h.kind} ${h.status}`).sort()).toEqual(['copy order Voided', 'copy void Voided', 'first order Complete']);

    // The till retries at node B once more: the standing sale's reply, nothing moves.
    const retry = await placeOrder(c.b.engine, await c.b.scope(), sale(c, 'R-7'));
    expect(retry.orderId).toBe(first.orderId);
    expect(await balances(c, c.b.engine)).toEqual({ points: 17, quickPay: 600 });
  });

  it('a void of the copy at node B voids the sale: both copies end reversed once, wherever each arrived first', async () => {
    for (const voidedAfterASynced of [false, true]) {
      const c = await chain(await database());
      const first = await placeOrder(c.a.engine, await c.a.scope(), sale(c, 'R-7'));
      const again = await placeOrder(c.b.engine, await c.b.scope(), sale(c, 'R-7'));
      // The cashier at node B voids the sale (node B holds only its copy), before or after A's copy reached central.
      if (voidedAfterASynced) await c.a.client.syncOnce();
      await voidOrder(c.b.engine, await c.b.scope(), 'R-7');
      await syncAll([c.a, c.b]);

      await expectEverywhere(c, { points: 20, quickPay: 1000 });
      for (const node of nodesOf(c)) {
        expect((await ordersOf(node.engine)).map((o) => o.status), `${node.name} (${voidedAfterASynced ? 'after' : 'before'} A synced)`).toEqual(['voided', 'voided']);
      }
      // Each entry of either copy is reversed exactly once (a second reversal is itself undone).
      for (const orderId of [first.orderId, again.orderId]) {
        const entries = await c.central.engine.db.selectFrom('ledger_entries').select(['id', 'reverses_id']).where('reference_type', '=', 'order').where('reference_id', '=', String(orderId)).execute();
        const undone = new Set(entries.map((e) => Number(e.reverses_id)));
        for (const original of entries.filter((e) => e.reverses_id === null)) {
          expect(entries.filter((e) => Number(e.reverses_id) === Number(original.id) && !undone.has(Number(e.id))), `standing reversals of entry ${original.id}`).toHaveLength(1);
        }
      }
      expect(await exceptionsOf(c)).toEqual([
        { kind: 'sale_repeated', subject: `order ${again.orderId}` },
        { kind: 'void_repeated', subject: `order ${again.orderId}` },
        { kind: 'sale_repeated', subject: `order ${first.orderId}` },
      ]);
      while (open.length > 0) await open.pop()!.close();
    }
  });

  it('a renamed receipt that is taken already gets the next free name, and its sale reaches central', async () => {
    const c = await chain(await database());
    const taken = `R-7~${c.b.engine.nodeId}`;
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'vi@example.com', receiptNumber: 'R-7', subtotal: 5 });
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'vi@example.com', receiptNumber: taken, subtotal: 6 });
    await c.a.client.syncOnce();
    await placeOrder(c.b.engine, await c.b.scope(), { identification: 'vi@example.com', receiptNumber: 'R-7', subtotal: 7 });
    await syncAll([c.a, c.b]);

    await expectEverywhere(c, { points: 38, quickPay: 1000 });
    const receipts = (await ordersOf(c.central.engine)).map((o) => `${o.receipt_number} ${o.status}`);
    expect(receipts).toEqual(['R-7 complete', `${taken} complete`, `${taken}.2 complete`]);
  });

  it('the same figures a day later, or for another customer, are another sale: kept, renamed, not voided', async () => {
    const c = await chain(await database());
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'bo@example.com' });
    await syncAll([c.a, c.b]);
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'vi@example.com', receiptNumber: 'R-7', subtotal: 5 });
    await placeOrder(c.b.engine, await c.b.scope(), { identification: 'bo@example.com', receiptNumber: 'R-7', subtotal: 5 });
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'vi@example.com', receiptNumber: 'R-8', subtotal: 5 });
    // 13 hours later a till numbering afresh each day sells R-8 again, to Vi, for the same amount.
    c.clock.advance(13 * 3_600_000);
    await placeOrder(c.b.engine, await c.b.scope(), { identification: 'vi@example.com', receiptNumber: 'R-8', subtotal: 5 });
    await syncAll([c.a, c.b]);

    await expectEverywhere(c, { points: 35, quickPay: 1000 });
    const statuses = (await c.central.engine.db.selectFrom('orders').select(['receipt_number', 'status']).where('receipt_number', 'like', 'R-%').orderBy('receipt_number').execute()).map((o) => `${o.receipt_number} ${o.status}`);
    const b = c.b.engine.nodeId;
    expect(statuses).toEqual(['R-1 complete', 'R-7 complete', `R-7~${b} complete`, 'R-8 complete', `R-8~${b} complete`].sort());
    expect((await exceptionsOf(c)).map((e) => e.kind)).toEqual(['receipt_reused', 'receipt_reused']);
  });

  it('a void at a node cut off from central, of a sale another node made, says where the sale is', async () => {
    const c = await chain(await database());
    for (const store of [c.a, c.b]) {
      store.link.down = true;
      await store.client.syncOnce().catch(() => undefined);
    }
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'vi@example.com', receiptNumber: 'R-9', subtotal: 5 });
    const refused = voidOrder(c.b.engine, await c.b.scope(), 'R-9');
    await expect(refused).rejects.toMatchObject({ code: 'order_not_found', field: 'receipt_number', message: expect.stringMatching(/is at this store node\. The store cannot reach central now/) });
    // Linked again, the sale arrives and the same void goes through.
    for (const store of [c.a, c.b]) store.link.down = false;
    await syncAll([c.a, c.b]);
    expect((await voidOrder(c.b.engine, await c.b.scope(), 'R-9')).status).toBe('Voided');
    // A receipt nobody sold, with the link up, is the plain refusal.
    await expect(voidOrder(c.b.engine, await c.b.scope(), 'R-404')).rejects.toMatchObject({ code: 'order_not_found', message: 'No order with that receipt number exists at this store.' });
  });
});
