import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { paymentsApi } from '../support/payments';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { expectResourceError } from '../support/resource-api';
import { type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Stored value paid back by staff (POST /backoffice/customers/:id/pay-backs), over real HTTP on
// SQLite and on PostgreSQL: in cash or refunded through the test gateway to the cards of the
// customer's reloads, newest first; a `payback` ledger entry, audited, once per idempotency key; a
// refusal of the gateway leaves the balance as it was; bad input changes nothing.

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

describe.each(NODES)('paying stored value back on $name', ({ start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  const pay = paymentsApi(asNode);
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;
  let keys = 0;

  beforeAll(async () => {
    node = await start();
    vendor = await node.addVendor('Café Pagado');
    owner = await ownerOf(asNode(), vendor.vendorId);
    manager = await invitedStaff(asNode(), owner, 'manager');
    storeManager = await invitedStaff(asNode(), owner, 'store_manager', vendor.storeId);
  }, 60_000);
  afterAll(() => node?.close());

  const payBack = (who: SignedInStaff, id: number, body: Record<string, unknown>): Promise<HttpReply> => staffCall(asNode(), who.token, 'POST', `/backoffice/customers/${id}/pay-backs`, body);
  const options = async (id: number) => {
    const reply = await staffCall(asNode(), owner.token, 'GET', `/backoffice/customers/${id}/pay-back`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  };
  const key = () => `pay-back-${++keys}`;
  const quickPayOf = async (c: Customer) => Math.round((await pay.quickPay(c.key)) * 100);
  const paybackEntries = async (c: Customer) =>
    (
      await node.engine.db
        .selectFrom('ledger_entries as e')
        .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
        .select(['e.amount', 'e.reverses_id'])
        .where('a.holder_type', '=', 'user')
        .where('a.holder_id', '=', c.userId)
        .where('e.kind', '=', 'payback')
        .orderBy('e.id')
        .execute()
    ).map((e) => Number(e.amount));
  const gatewayRefunds = async () => (await node.engine.db.selectFrom('test_gateway_refunds').select(['amount', 'status']).orderBy('created_at').orderBy('id').execute()).map((r) => [Number(r.amount), r.status]);

  /** A member who loaded `amounts` (dollars) by card, one reload after another (the clock moves between them). */
  async function memberWithReloads(...amounts: number[]): Promise<{ customer: Customer; profile: number }> {
    const customer = await signUpAt(asNode(), vendor.vendorId);
    const profile = (await pay.addProfileOk(customer.key)).id;
    for (const amount of amounts) {
      await pay.reloadOk(customer.key, { user_billingprofile: profile, amount });
      node.clock.advance(60_000);
    }
    return { customer, profile };
  }

  it('in cash: the balance falls by a payback entry, audited, once per key; the same key for another amount is 409', async () => {
    const { customer } = await memberWithReloads(25);
    const k = key();
    const paid = await payBack(manager, customer.userId, { amount: 1000, method: 'cash', idempotency_key: k, note: 'Receipt 118' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body).toMatchObject({ method: 'cash', status: 'paid', amount: 1000, amount_paid: 1000, code: 'USD', balance: 1500, note: 'Receipt 118', refunds: [] });
    expect(await quickPayOf(customer)).toBe(1500);
    expect(await paybackEntries(customer)).toEqual([-1000]);

    // A double click: the same key answers the same pay-back and pays nothing more.
    const again = await payBack(manager, customer.userId, { amount: 1000, method: 'cash', idempotency_key: k });
    expect([again.status, again.body.id, again.body.balance]).toEqual([201, paid.body.id, 1500]);
    expectResourceError(await payBack(manager, customer.userId, { amount: 500, method: 'cash', idempotency_key: k }), 409, 'idempotency_key_reused', 'idempotency_key');
    expect(await paybackEntries(customer)).toEqual([-1000]);

    const audit = await node.engine.db.selectFrom('audit_log').select(['action', 'after']).where('action', '=', 'customer.pay_back').where('object_id', '=', String(customer.userId) as never).execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(String(audit[0]!.after))).toMatchObject({ amount: 1000, method: 'cash', balance: 1500, note: 'Receipt 118', payback: paid.body.id });
    // The customer's history has a record of it beside the reload (the note stays staff's).
    const history = await pay.history(customer.key);
    expect(history).toHaveLength(2);
    expect(JSON.stringify(history)).not.toContain('Receipt 118');
    expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
  });

  it('refuses bad input and more than the balance, changing nothing', async () => {
    const { customer } = await memberWithReloads(10);
    const refused: Array<[Record<string, unknown>, number, string, string | undefined]> = [
      [{ amount: 0, method: 'cash', idempotency_key: key() }, 400, 'validation_failed', 'amount'],
      [{ amount: -100, method: 'cash', idempotency_key: key() }, 400, 'validation_failed', 'amount'],
      [{ amount: 100, method: 'cheque', idempotency_key: key() }, 400, 'validation_failed', 'method'],
      [{ amount: 100, method: 'cash', idempotency_key: '' }, 400, 'validation_failed', 'idempotency_key'],
      [{ amount: 100, method: 'cash', idempotency_key: 'has space' }, 400, 'validation_failed', 'idempotency_key'],
      [{ amount: 100, method: 'cash' }, 400, 'validation_failed', 'idempotency_key'],
      [{ amount: 1001, method: 'cash', idempotency_key: key() }, 422, 'payback_exceeds_balance', 'amount'],
      [{ amount: 1001, method: 'card', idempotency_key: key() }, 422, 'payback_exceeds_balance', 'amount'],
    ];
    for (const [body, status, code, field] of refused) expectResourceError(await payBack(owner, customer.userId, body), status, code, field);
    // A store manager may not pay out; another program's owner does not see the customer.
    expectResourceError(await payBack(storeManager, customer.userId, { amount: 100, method: 'cash', idempotency_key: key() }), 403, 'forbidden');
    const stranger = await ownerOf(asNode(), (await node.addVendor()).vendorId);
    expect((await payBack(stranger, customer.userId, { amount: 100, method: 'cash', idempotency_key: key() })).status).toBe(404);
    expect((await payBack(owner, 999_999_999, { amount: 100, method: 'cash', idempotency_key: key() })).status).toBe(404);
    expect(await quickPayOf(customer)).toBe(1000);
    expect(await paybackEntries(customer)).toEqual([]);
  });

  it('to the card: split across the reload charges, newest first; what is left of them is what a card pay-back can take', async () => {
    const { customer } = await memberWithReloads(10, 20);
    expect(await options(customer.userId)).toMatchObject({ code: 'USD', balance: 3000, card_refundable: 3000, allowed_here: true });
    const before = (await gatewayRefunds()).length;
    const paid = await payBack(owner, customer.userId, { amount: 2500, method: 'card', idempotency_key: key() });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body).toMatchObject({ method: 'card', status: 'paid', amount: 2500, amount_paid: 2500, balance: 500 });
    expect(paid.body.refunds.map((r: any) => [r.amount, r.status, r.last4])).toEqual([
      [2000, 'succeeded', '4242'],
      [500, 'succeeded', '4242'],
    ]);
    // Made at the same moment of the test clock: compared by amount.
    expect((await gatewayRefunds()).slice(before).sort((a, b) => Number(b[0]) - Number(a[0]))).toEqual([
      [2000, 'succeeded'],
      [500, 'succeeded'],
    ]);
    expect(await quickPayOf(customer)).toBe(500);
    expect(await options(customer.userId)).toMatchObject({ balance: 500, card_refundable: 500 });
    // Spent elsewhere or paid in cash since: the cards can take no more than the balance holds.
    expectResourceError(await payBack(owner, customer.userId, { amount: 600, method: 'card', idempotency_key: key() }), 422, 'payback_exceeds_balance', 'amount');
  });

  it('to the card: more than the card reloads paid (a balance loaded otherwise) is refused; cash pays it', async () => {
    const { customer } = await memberWithReloads(5);
    // 10.00 more by a staff adjustment: money no card paid.
    expect((await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${customer.userId}/adjustments`, { currency: (await options(customer.userId)).currency, amount: 1000, reason: 'Goodwill credit' })).status).toBe(201);
    expect(await options(customer.userId)).toMatchObject({ balance: 1500, card_refundable: 500 });
    expectResourceError(await payBack(owner, customer.userId, { amount: 600, method: 'card', idempotency_key: key() }), 422, 'payback_exceeds_card_refunds', 'amount');
    expect(await quickPayOf(customer)).toBe(1500);
    expect((await payBack(owner, customer.userId, { amount: 1500, method: 'cash', idempotency_key: key() })).body).toMatchObject({ status: 'paid', balance: 0 });
  });

  it('a refund the gateway refuses pays nothing: 422 payback_refused, the balance as it was, the charge still refundable', async () => {
    const { customer } = await memberWithReloads(12);
    const k = key();
    pay.gateway().declineNextRefunds(1);
    expectResourceError(await payBack(owner, customer.userId, { amount: 1200, method: 'card', idempotency_key: k }), 422, 'payback_refused');
    expect(await quickPayOf(customer)).toBe(1200);
    // Taken out before the gateway was asked, given back by a compensating entry.
    expect(await paybackEntries(customer)).toEqual([-1200, 1200]);
    expect(await options(customer.userId)).toMatchObject({ balance: 1200, card_refundable: 1200 });
    const row = await node.engine.db.selectFrom('stored_value_paybacks').select(['status', 'amount_paid']).where('idempotency_key', '=', k).executeTakeFirstOrThrow();
    expect([row.status, Number(row.amount_paid)]).toEqual(['refused', 0]);
    // The same key answers the same refusal; a new one pays.
    expectResourceError(await payBack(owner, customer.userId, { amount: 1200, method: 'card', idempotency_key: k }), 422, 'payback_refused');
    expect((await payBack(owner, customer.userId, { amount: 1200, method: 'card', idempotency_key: key() })).body).toMatchObject({ status: 'paid', balance: 0 });
    expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
  });

  it('a refused part of a refund across two charges comes back; the rest is paid (partial)', async () => {
    const { customer } = await memberWithReloads(3, 4);
    // The older charge was refunded at the processor by hand meanwhile: its part is refused there.
    const older = await node.engine.db.selectFrom('payment_charges').select('gateway_charge_id').where('user_id', '=', customer.userId).orderBy('created_at').executeTakeFirstOrThrow();
    expect((await pay.gateway().refund(older.gateway_charge_id!, 'by-hand')).status).toBe('succeeded');
    const paid = await payBack(owner, customer.userId, { amount: 600, method: 'card', idempotency_key: key() });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body).toMatchObject({ status: 'partial', amount: 600, amount_paid: 400, balance: 300 });
    expect(paid.body.refunds.map((r: any) => [r.amount, r.status])).toEqual([
      [400, 'succeeded'],
      [200, 'failed'],
    ]);
    expect(await paybackEntries(customer)).toEqual([-600, 200]);
    expect(await options(customer.userId)).toMatchObject({ balance: 300, card_refundable: 300 });
  });

  it('a refund whose answer was lost keeps the money out (503); the same key asks again under the same gateway key and pays once', async () => {
    const { customer } = await memberWithReloads(8);
    const k = key();
    const before = (await gatewayRefunds()).length;
    pay.gateway().loseNextAnswers(1);
    const lost = await payBack(owner, customer.userId, { amount: 800, method: 'card', idempotency_key: k });
    expect([lost.status, lost.body.code]).toEqual([503, 'payment_gateway_unavailable']);
    // The gateway refunded it: the balance already shows it, and nothing else can spend it.
    expect(await quickPayOf(customer)).toBe(0);
    // The profile's control lists it with its key, so it can be finished from another screen.
    expect((await options(customer.userId)).unfinished).toEqual([{ amount: 800, method: 'card', idempotency_key: k }]);
    const retried = await payBack(owner, customer.userId, { amount: 800, method: 'card', idempotency_key: k });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.body).toMatchObject({ status: 'paid', amount_paid: 800, balance: 0 });
    expect((await gatewayRefunds()).slice(before)).toEqual([[800, 'succeeded']]);
    expect(await paybackEntries(customer)).toEqual([-800]);
    expect((await options(customer.userId)).unfinished).toEqual([]);
  });

  it('five clicks at once pay once', async () => {
    const { customer } = await memberWithReloads(9);
    const body = { amount: 900, method: 'cash', idempotency_key: key() };
    const replies = await Promise.all(Array.from({ length: 5 }, () => payBack(owner, customer.userId, body)));
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(await paybackEntries(customer)).toEqual([-900]);
    expect(await quickPayOf(customer)).toBe(0);
  });

  it('is central’s at a paired store: 409 payback_managed_by_central, nothing changed', async () => {
    const { customer } = await memberWithReloads(4);
    node.engine.programRole = 'replica';
    try {
      expectResourceError(await payBack(owner, customer.userId, { amount: 100, method: 'cash', idempotency_key: key() }), 409, 'payback_managed_by_central');
      expect((await options(customer.userId)).allowed_here).toBe(false);
    } finally {
      node.engine.programRole = 'owner';
    }
    expect(await quickPayOf(customer)).toBe(400);
  });

  it('the dashboard shows what was paid back, so the liability’s move adds up', async () => {
    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/dashboard');
    expect(reply.status).toBe(200);
    const d = reply.body;
    const f = d.last_30_days;
    // Every pay-back above, net of the refused refunds' returns.
    expect(f.stored_value_paid_back).toBe(1000 + 1500 + 2500 + 1200 + 400 + 800 + 900);
    const moved = f.stored_value_loaded - f.stored_value_spent + f.stored_value_returned + f.stored_value_adjusted + f.stored_value_forfeited - f.stored_value_paid_back;
    expect(moved).toBe(d.outstanding_stored_value);
  });
});
