import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYBACK_FINISH_GRACE_MS, PAYBACK_STUCK_MS } from '../../src/core/payments/pay-back/finish-lost-paybacks';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { giftPaidWithoutGift, reloadRefused } from '../support/payment-exceptions';
import { paymentsApi } from '../support/payments';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { expectResourceError } from '../support/resource-api';
import { startTestNode, type TestNode } from '../support/test-node';

// What the ninth round left on the back office's money screen, over real HTTP on SQLite and
// PostgreSQL: the payment exceptions page as the audit log does (offset, limit, total); a guest
// eGift's exception says who bought it (as the purchase took them, never card data); card
// pay-backs whose refund outcome is unknown are listed across customers for owners and managers,
// with the customer to contact, and finished from there once, audited.

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

describe.each(NODES)('payment exceptions paged, guests and unfinished pay-backs on $name', ({ start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  const pay = paymentsApi(asNode);
  let vendorId: number;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;
  let keys = 0;

  beforeAll(async () => {
    node = await start();
    vendorId = (await node.addVendor('Paging Café')).vendorId;
    owner = await ownerOf(asNode(), vendorId);
    manager = await invitedStaff(asNode(), owner, 'manager');
    const store = await node.engine.db.selectFrom('stores').select('id').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
    storeManager = await invitedStaff(asNode(), owner, 'store_manager', store.id);
  }, 60_000);
  afterAll(() => node?.close());

  const exceptions = (token: string | null, query = '') => staffCall(asNode(), token, 'GET', `/backoffice/payment-exceptions${query}`);
  const unfinished = (token: string | null, query = '') => staffCall(asNode(), token, 'GET', `/backoffice/unfinished-paybacks${query}`);
  const finish = (token: string | null, id: number | string) => staffCall(asNode(), token, 'POST', `/backoffice/unfinished-paybacks/${id}/finish`);

  it('a guest eGift’s exception keeps the buyer’s contact as the purchase took it, and no card data', async () => {
    await giftPaidWithoutGift(asNode(), vendorId, 12, { name: '  Gus Guest ', email: 'Gus@Example.com' });
    const reply = await exceptions(manager.token);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const [gift] = reply.body.items;
    expect(gift).toMatchObject({ kind: 'paid_without_gift', customer: null, guest_buyer: { name: 'Gus Guest', email: expect.stringMatching(/^gus@example\.com$/i) } });
    // The test Visa's number, expiry and CVV are nowhere in the reply, nor in the charge's row.
    expect(JSON.stringify(reply.body)).not.toMatch(/4242|last4|brand|cvv|2030/);
    const charge = await node.engine.db.selectFrom('payment_charges').selectAll().where('id', '=', gift.charge_id).executeTakeFirstOrThrow();
    expect(charge).toMatchObject({ user_id: null, buyer_name: 'Gus Guest', buyer_email: gift.guest_buyer.email });
    // The gateway's charge id is random hex, which may hold "2030" or "4242" by chance: left out.
    const { gateway_charge_id: _randomId, ...stored } = charge;
    expect(JSON.stringify(stored)).not.toMatch(/4242|2030/);
  });

  it('a customer’s charge names the customer, not a guest buyer', async () => {
    const carla = await signUpAt(asNode(), vendorId, { first_name: 'Carla', last_name: 'Crédito' });
    await reloadRefused(asNode(), vendorId, carla, 30);
    const [reload] = (await exceptions(owner.token)).body.items;
    expect(reload).toMatchObject({ kind: 'reload_refused', customer: { first_name: 'Carla' }, guest_buyer: null });
    const charge = await node.engine.db.selectFrom('payment_charges').select(['buyer_name', 'buyer_email']).where('id', '=', reload.charge_id).executeTakeFirstOrThrow();
    expect(charge).toEqual({ buyer_name: null, buyer_email: null });
  });

  it('pages as the audit log does: offset, limit, the filter’s total, newest first without overlap', async () => {
    for (const [i, amount] of [3, 4, 5].entries()) await giftPaidWithoutGift(asNode(), vendorId, amount, { name: `Buyer ${i}`, email: `buyer${i}@example.com` });
    const all = (await exceptions(owner.token, '?status=all&limit=100')).body;
    expect(all).toMatchObject({ total: 5, limit: 100, offset: 0 });
    const first = (await exceptions(owner.token, '?limit=2')).body;
    expect(first).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(first.items.map((x: any) => x.amount)).toEqual([500, 400]);
    const second = (await exceptions(owner.token, '?limit=2&offset=2')).body;
    const third = (await exceptions(owner.token, '?limit=2&offset=4')).body;
    expect([second.items.length, third.items.length, third.total]).toEqual([2, 1, 5]);
    expect([...first.items, ...second.items, ...third.items].map((x: any) => x.id)).toEqual(all.items.map((x: any) => x.id));
    // The default page is 25; past the end is an empty page with the total.
    expect((await exceptions(owner.token)).body).toMatchObject({ limit: 25, offset: 0, total: 5 });
    expect((await exceptions(owner.token, '?offset=10')).body).toMatchObject({ items: [], total: 5 });
    expect((await exceptions(owner.token, '?status=refunded&limit=1')).body).toMatchObject({ items: [], total: 0 });

    expectResourceError(await exceptions(owner.token, '?limit=0'), 400, 'validation_failed', 'limit');
    expectResourceError(await exceptions(owner.token, '?limit=101'), 400, 'validation_failed', 'limit');
    expectResourceError(await exceptions(owner.token, '?limit=ten'), 400, 'validation_failed', 'limit');
    expectResourceError(await exceptions(owner.token, '?offset=-1'), 400, 'validation_failed', 'offset');
    expectResourceError(await exceptions(storeManager.token, '?limit=2'), 403, 'forbidden');
  });

  async function memberWithReload(amount: number): Promise<Customer> {
    const customer = await signUpAt(asNode(), vendorId, { first_name: 'Paula', last_name: 'Payback' });
    const profile = (await pay.addProfileOk(customer.key)).id;
    await pay.reloadOk(customer.key, { user_billingprofile: profile, amount });
    return customer;
  }

  /** A card pay-back whose refund answer the gateway lost (it did refund): 503, left `refunding`. */
  async function lostPayback(customer: Customer, amount: number): Promise<number> {
    const key = `paging-pay-back-${++keys}`;
    pay.gateway().loseNextAnswers(1);
    const reply = await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${customer.userId}/pay-backs`, { amount, method: 'card', idempotency_key: key });
    expect([reply.status, reply.body.code]).toEqual([503, 'payment_gateway_unavailable']);
    const row = await node.engine.db.selectFrom('stored_value_paybacks').select(['id', 'status']).where('idempotency_key', '=', key).executeTakeFirstOrThrow();
    expect(row.status).toBe('refunding');
    return Number(row.id);
  }

  const finishAudits = async () =>
    (await node.engine.db.selectFrom('audit_log').select(['action', 'actor', 'after']).where('action', 'like', 'customer.pay_back%').where('vendor_id', '=', vendorId).orderBy('id').execute()).map((a) => ({ action: a.action, actor: a.actor, after: JSON.parse(String(a.after)) }));

  it('lists card pay-backs whose refund outcome is unknown across customers, with the customer; stuck after a day', async () => {
    const paula = await memberWithReload(20);
    const id = await lostPayback(paula, 800);
    // Younger than the job's grace: its own request may still be waiting on the answer.
    expect((await unfinished(owner.token)).body).toMatchObject({ items: [], total: 0, limit: 25, offset: 0 });
    node.clock.advance(PAYBACK_FINISH_GRACE_MS);
    const listed = await unfinished(manager.token);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toMatchObject({ total: 1 });
    expect(listed.body.items).toEqual([
      {
        id,
        customer_id: paula.userId,
        customer: { id: paula.userId, first_name: 'Paula', last_name: 'Payback', email: paula.email, phone: null },
        status: 'refunding',
        amount: 800,
        amount_paid: 800,
        currency: 'USD',
        currency_digits: 2,
        stuck: false,
        refunds: [{ amount: 800, status: 'pending', brand: 'Visa', last4: '4242' }],
        date_created: expect.any(String),
      },
    ]);
    // A day old (made a day earlier: the staff sessions would not last a day of the clock).
    const made = await node.engine.db.selectFrom('stored_value_paybacks').select('created_at').where('id', '=', id).executeTakeFirstOrThrow();
    await node.engine.db.updateTable('stored_value_paybacks').set({ created_at: Number(made.created_at) - PAYBACK_STUCK_MS }).where('id', '=', id).execute();
    expect((await unfinished(owner.token)).body.items[0]).toMatchObject({ id, stuck: true });

    // Another program sees none of it, and cannot finish it.
    const other = await ownerOf(asNode(), (await node.addVendor('Other Café')).vendorId);
    expect((await unfinished(other.token)).body).toMatchObject({ items: [], total: 0 });
    expectResourceError(await finish(other.token, id), 404, 'payback_not_found');
    expectResourceError(await unfinished(storeManager.token), 403, 'forbidden');
    expectResourceError(await finish(storeManager.token, id), 403, 'forbidden');
    expectResourceError(await unfinished(null), 401, 'missing_credentials');
    expectResourceError(await unfinished(owner.token, '?limit=0'), 400, 'validation_failed', 'limit');
    expectResourceError(await finish(owner.token, 'abc'), 400, 'validation_failed', 'id');
    expectResourceError(await finish(owner.token, 999_999_999), 404, 'payback_not_found');
    expect((await node.engine.db.selectFrom('stored_value_paybacks').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('refunding');
    expect(await finishAudits()).toEqual([expect.objectContaining({ action: 'customer.pay_back' })]);
  });

  it('"Finish the refund": the gateway still silent is 503 and changes nothing; then the money goes back once, audited by the staff member; again is 409', async () => {
    const [stuck] = (await unfinished(owner.token)).body.items;
    const refundsAtGateway = async () => Number((await node.engine.db.selectFrom('test_gateway_refunds').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    expect(await refundsAtGateway()).toBe(1);

    pay.gateway().refuseNextRequests(1);
    const silent = await finish(manager.token, stuck.id);
    expect([silent.status, silent.body.code]).toEqual([503, 'payment_gateway_unavailable']);
    expect((await unfinished(owner.token)).body.items.map((p: any) => p.id)).toEqual([stuck.id]);
    expect(await finishAudits()).toHaveLength(1);

    const done = await finish(manager.token, stuck.id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ id: stuck.id, status: 'paid', amount_paid: 800, stuck: false, refunds: [{ status: 'succeeded' }] });
    // The same refund key: the gateway answered the refund it had made, no second one.
    expect(await refundsAtGateway()).toBe(1);
    expect(await finishAudits()).toEqual([
      expect.objectContaining({ action: 'customer.pay_back' }),
      { action: 'customer.pay_back_finished', actor: manager.email, after: { currency: expect.stringMatching(/^curr_/), payback: stuck.id, status: 'paid', amount_paid: 800, returned: 0 } },
    ]);
    expect((await unfinished(owner.token)).body).toMatchObject({ items: [], total: 0 });
    expectResourceError(await finish(owner.token, stuck.id), 409, 'invalid_status_transition');
    expect(await finishAudits()).toHaveLength(2);
  });
});
