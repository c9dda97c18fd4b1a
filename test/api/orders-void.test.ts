import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import { nextObjectId } from '../../src/core/storage/ids';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, pointsOf, quickPayOf } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// DELETE /order?api_key {receipt_number} over real HTTP: voiding writes a compensating entry for
// every ledger entry of the order (`<kind>_reversal`, reverses_id naming the original), marks the
// order's history record Voided and adds a 'void' record, answers the order reply with status
// Voided and the balances after, and answers the same again for a second void. Other stores and
// vendors cannot void an order that is not theirs.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// The ledger check of the in-store issue: every cached balance equals the sum of its entries.
afterEach(async () => {
  await expectBalancesAddUp(node);
});

// ---------------------------------------------------------------------------------------------
// helpers (each orders-* file keeps its own: test files share no module but test/support)

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const enc = encodeURIComponent;


let vendorCount = 0;
const addVendor = () => node.addVendor(`Orders void ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

let receiptCount = 0;
const newReceipt = () => `V-${++receiptCount}`;

const { postOrder, deleteOrder, orderOk, credit, balanceOf } = inStoreApi(() => node);
const voidOk = (apiKey: string, receipt: string) => inStoreApi(() => node).voidOk(apiKey, receipt, { contentType: true });
const addReward = async (v: VendorCredentials, name: string, cost: number) => (await inStoreApi(() => node).addReward(v, { name, cost })).id;






const orderEntries = (orderId: number) =>
  node.engine.db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['e.id', 'a.currency_id', 'e.amount', 'e.kind', 'e.reverses_id', 'e.reference_type', 'e.reference_id', 'e.created_at'])
    .where('e.reference_type', '=', 'order')
    .where('e.reference_id', '=', String(orderId))
    .orderBy('e.id')
    .execute();

const transactionsOf = (userId: number) => node.engine.db.selectFrom('transactions').selectAll().where('user_id', '=', userId).orderBy('id').execute();

async function snapshot(userId: number) {
  const db = node.engine.db;
  const count = async (table: 'orders' | 'ledger_entries' | 'transactions') => (await db.selectFrom(table).select('id').execute()).length;
  return {
    entries: await count('ledger_entries'),
    transactions: await count('transactions'),
    orders: await db.selectFrom('orders').select(['id', 'status', 'voided_at']).where('user_id', '=', userId).orderBy('id').execute(),
    records: await db.selectFrom('transactions').select(['id', 'status']).where('user_id', '=', userId).orderBy('id').execute(),
    balances: await db.selectFrom('ledger_accounts').select(['currency_id', 'balance']).where('holder_id', '=', userId).orderBy('id').execute(),
  };
}


// ---------------------------------------------------------------------------------------------

describe('DELETE /order', () => {
  it('voids an order: the reply is the order with status Voided and the balances restored; reversal entries point at the originals', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 2_000);
    await credit(v, v.loyaltyCurrencyId, c.userId, 50);
    const reward = await addReward(v, 'Cookie', 20);
    const receipt = newReceipt();
    const placed = await orderOk(v.apiKey, {
      card_number: c.email,
      receipt_number: receipt,
      till: 2,
      subtotal: 12.75,
      total: 13.5,
      quick_pay: 3.5,
      payment_method: 'card',
      items: [{ name: 'Latte', quantity: 1, price: 12.75 }],
      redemptions: [reward],
    });
    expect(placed).toMatchObject({ status: 'Complete', points_earned: 12, points_spent: 20, quick_pay_used: 3.5 });
    expect(placed.balances).toStrictEqual({ loyalty: [{ currency: pointsOf(v), amount: 42 }], quick_pay: { currency: quickPayOf(v), amount: 16.5 } });
    const originals = await orderEntries(placed.id);

    node.clock.advance(120_000);
    const voided = await voidOk(v.apiKey, receipt);
    // A void's reply: the order's, Voided, with the balances after it (the tier the order left is not the void's to tell).
    expect(voided).toStrictEqual({
      ...withoutTier(placed),
      status: 'Voided',
      balances: { loyalty: [{ currency: pointsOf(v), amount: 50 }], quick_pay: { currency: quickPayOf(v), amount: 20 } },
    });
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(50);
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(2_000);

    const entries = await orderEntries(placed.id);
    expect(originals.map((e) => [e.currency_id, e.amount, e.kind, e.reverses_id])).toStrictEqual([
      [v.quickPayCurrencyId, -350, 'spend', null],
      [v.loyaltyCurrencyId, -20, 'redeem', null],
      [v.loyaltyCurrencyId, 12, 'earn', null],
    ]);
    expect(entries.slice(3)).toStrictEqual(
      originals.map((o) => ({
        id: expect.any(Number),
        currency_id: o.currency_id,
        amount: -o.amount,
        kind: `${o.kind}_reversal`,
        reverses_id: o.id,
        reference_type: 'order',
        reference_id: String(placed.id),
        created_at: node.clock.now(),
      })),
    );
    expect(entries).toHaveLength(6);

    const row = await node.engine.db.selectFrom('orders').select(['status', 'voided_at']).where('id', '=', placed.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'voided', voided_at: node.clock.now() });

    // history: the order's record is Voided, and a void record follows it
    const records = await transactionsOf(c.userId);
    expect(records.map((r) => [r.id === placed.transaction_id, r.kind, r.status])).toStrictEqual([
      [true, 'order', 'Voided'],
      [false, 'void', 'Voided'],
    ]);
    expect(records[1]).toMatchObject({
      order_id: placed.id,
      store_id: v.storeId,
      occurred_at: node.clock.now(),
      total: -1_350,
      quick_pay_used: 0,
      quick_pay_loaded: 350,
      quick_pay_balance: 2_000,
    });
    expect(JSON.parse(records[1]!.receipts)).toStrictEqual([{ receipt_number: receipt, till: 2, payment_method: 'card', voids: placed.transaction_id }]);
  });

  it('voiding twice answers the same reply and adds nothing', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 1_000);
    const receipt = newReceipt();
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 7.5, quick_pay: 2.5 });
    const first = await voidOk(v.apiKey, receipt);
    expect(first.status).toBe('Voided');
    expect(first.balances).toStrictEqual({ loyalty: [{ currency: pointsOf(v), amount: 0 }], quick_pay: { currency: quickPayOf(v), amount: 10 } });
    const after = await snapshot(c.userId);
    node.clock.advance(10_000);
    const second = await voidOk(v.apiKey, receipt);
    expect(await snapshot(c.userId)).toStrictEqual(after);
    // the same reply, balances included (they are the balances after the void, as the first said)
    expect(second).toStrictEqual(first);
  });

  it('a resend of a voided receipt does not place the order again: it answers the void (status Voided, the balances after it) and moves nothing', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    const order = { card_number: c.email, receipt_number: receipt, subtotal: 9 };
    const placed = await orderOk(v.apiKey, order);
    const voided = await voidOk(v.apiKey, receipt);
    expect(voided).toMatchObject({ id: placed.id, status: 'Voided', points_earned: 9, balances: { loyalty: [{ amount: 0 }] } });
    const after = await snapshot(c.userId);
    // A POS retrying after a timeout is not told "Complete" for a sale that no longer stands.
    expect(await orderOk(v.apiKey, order)).toStrictEqual(voided);
    expect(await snapshot(c.userId)).toStrictEqual(after);
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(0);
  });

  it('an order that moved nothing (subtotal 0) voids without entries or history records', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    const placed = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 0 });
    expect(placed.transaction_id).toBeNull();
    expect(await voidOk(v.apiKey, receipt)).toStrictEqual({ ...withoutTier(placed), status: 'Voided' });
    expect(await orderEntries(placed.id)).toEqual([]);
    expect(await transactionsOf(c.userId)).toEqual([]);
    expect((await node.engine.db.selectFrom('orders').select('status').where('id', '=', placed.id).executeTakeFirstOrThrow()).status).toBe('voided');
  });

  it('points earned and spent before the void leave a negative balance (allowed: the refund stands)', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const reward = await addReward(v, 'Lunch', 40);
    const earning = newReceipt();
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: earning, subtotal: 50 });
    const spending = await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 0, redemptions: [reward] });
    expect(spending.balances.loyalty).toStrictEqual([{ currency: pointsOf(v), amount: 10 }]);
    const voided = await voidOk(v.apiKey, earning);
    expect(voided.balances.loyalty).toStrictEqual([{ currency: pointsOf(v), amount: -40 }]);
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(-40);
    // the counter sees it too
    const session = await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { card_number: c.email } });
    expect(session.status).toBe(201);
    const retrieved = await http(`${node.url}/onscreen?pos_session_hash=${session.body.pos_session.hash}&api_key=${enc(v.apiKey)}`);
    expect(retrieved.status, JSON.stringify(retrieved.body)).toBe(200);
    expect(retrieved.body.loyalty_balance.data[0]).toMatchObject({ amount: -40, currency: pointsOf(v) });
    // and a further reward is refused
    expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 0, redemptions: [reward] }), 422, 'insufficient_points', 'redemptions');
  });

  it("an unknown receipt, another store's receipt and another vendor's receipt: 404 order_not_found; nothing changes", async () => {
    const v = await addVendor();
    const w = await addVendor();
    const north = await transact(node.engine, async (trx) => {
      const now = node.clock.now();
      const storeId = await nextObjectId(trx, node.engine.nodeId);
      await trx
        .insertInto('stores')
        .values({ id: storeId, vendor_id: v.vendorId, name: 'North Store', address1: '9 Side Street', address2: null, city: 'Shelbyville', region: null, country: 'US', postal_code: null, phone: null, created_at: now, updated_at: now })
        .execute();
      return addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId, posId: null, role: 'cashier', label: 'North counter' });
    });
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 30 });
    const before = await snapshot(c.userId);
    expectLegacyError(await deleteOrder(v.apiKey, { receipt_number: 'never-sold' }), 404, 'order_not_found', 'receipt_number');
    expectLegacyError(await deleteOrder(north.key, { receipt_number: receipt }), 404, 'order_not_found', 'receipt_number');
    expectLegacyError(await deleteOrder(w.apiKey, { receipt_number: receipt }), 404, 'order_not_found', 'receipt_number');
    expect(await snapshot(c.userId)).toStrictEqual(before);
    expect(before.orders.map((o) => o.status)).toEqual(['complete']);
    // vendor B with its own order under the same receipt number voids only its own
    const d = await signUp(w.vendorId);
    await orderOk(w.apiKey, { card_number: d.email, receipt_number: receipt, subtotal: 3 });
    expect((await voidOk(w.apiKey, receipt)).user.user_id).toBe(String(d.userId));
    const own = ({ orders, records, balances }: typeof before) => ({ orders, records, balances });
    expect(own(await snapshot(c.userId))).toStrictEqual(own(before));
  });

  it('400 validation_failed without a receipt_number; 403 for a kiosk key', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 4 });
    const before = await snapshot(c.userId);
    expectLegacyError(await deleteOrder(v.apiKey, {}), 400, 'validation_failed', 'receipt_number');
    expectLegacyError(await deleteOrder(v.apiKey, { receipt_number: '' }), 400, 'validation_failed', 'receipt_number');
    expectLegacyError(await deleteOrder(v.kioskApiKey, { receipt_number: receipt }), 403, 'forbidden');
    expectLegacyError(await deleteOrder(v.apiKey, { receipt_number: 'x'.repeat(97) }), 400, 'validation_failed', 'receipt_number');
    expect(await snapshot(c.userId)).toStrictEqual(before);
  });

  it('voids a sale central renamed past 64 characters (a reused 64-character receipt, `~<node>.<n>`)', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = 'R'.repeat(64);
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 4 });
    const renamed = `${receipt}~1048575.2`;
    await node.engine.db.updateTable('orders').set({ receipt_number: renamed }).where('receipt_number', '=', receipt).execute();
    const voided = await deleteOrder(v.apiKey, { receipt_number: renamed });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    expect(voided.body.status).toBe('Voided');
    expect((await node.engine.db.selectFrom('orders').select('status').where('receipt_number', '=', renamed).executeTakeFirstOrThrow()).status).toBe('voided');
  });
});

function withoutTier(reply: Record<string, unknown>): Record<string, unknown> {
  const { tier: _tier, ...rest } = reply;
  return rest;
}
