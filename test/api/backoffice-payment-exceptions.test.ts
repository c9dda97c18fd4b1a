import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { giftPaidWithoutGift, reloadRefused } from '../support/payment-exceptions';
import { paymentsApi } from '../support/payments';
import { expectResourceError } from '../support/resource-api';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { startTestNode, type TestNode } from '../support/test-node';

// Payment exceptions in the back office over real HTTP, on SQLite and PostgreSQL: owners and
// managers list them (with the customer to contact, amounts in minor units) and refund or credit
// one with the resource API's state rules and refusals, each resolution in the audit log; a store
// manager is refused (they belong to no store), another program's exception is unknown, bad input
// is a 400 that changes nothing.

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

describe.each(NODES)('back-office payment exceptions on $name', ({ start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  const pay = paymentsApi(asNode);
  let vendorId: number;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;
  let customer: Awaited<ReturnType<typeof signUpAt>>;

  beforeAll(async () => {
    node = await start();
    const v = await node.addVendor('Exception Café');
    vendorId = v.vendorId;
    owner = await ownerOf(asNode(), vendorId);
    manager = await invitedStaff(asNode(), owner, 'manager');
    const store = await node.engine.db.selectFrom('stores').select('id').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
    storeManager = await invitedStaff(asNode(), owner, 'store_manager', store.id);
    // Oldest first: a guest's eGift paid without its gift, then a customer's refused reload.
    await giftPaidWithoutGift(asNode(), vendorId, 12, { name: 'Gus Guest', email: 'gus@example.com' });
    customer = await signUpAt(asNode(), vendorId, { first_name: 'Carla', last_name: 'Crédito' });
    await reloadRefused(asNode(), vendorId, customer, 30);
  }, 60_000);
  afterAll(() => node?.close());

  const list = (token: string | null, query = '') => staffCall(asNode(), token, 'GET', `/backoffice/payment-exceptions${query}`);
  const resolve = (token: string | null, id: number | string, body: unknown) => staffCall(asNode(), token, 'POST', `/backoffice/payment-exceptions/${id}/resolve`, body);
  const audit = async () => (await staffCall(asNode(), owner.token, 'GET', '/backoffice/audit?object_type=payment_exception')).body.items as Array<Record<string, any>>;
  const statusOf = async (id: number) => (await node.engine.db.selectFrom('payment_exceptions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

  it('lists the open exceptions newest first, with the customer to contact and the amount in minor units', async () => {
    const reply = await list(manager.token);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const [reload, gift] = reply.body.items;
    expect(reply.body.items).toHaveLength(2);
    expect(reload).toMatchObject({ kind: 'reload_refused', status: 'open', purpose: 'reload', amount: 3000, currency: 'USD', currency_digits: 2, resolution: null, date_resolved: null });
    expect(reload.customer).toEqual({ id: customer.userId, first_name: 'Carla', last_name: 'Crédito', email: customer.email, phone: null });
    expect(gift).toMatchObject({ kind: 'paid_without_gift', status: 'open', purpose: 'egift', amount: 1200, customer: null });
    expect(typeof gift.id).toBe('number');
    // The owner sees the same; the filter takes the resource API's statuses.
    expect((await list(owner.token)).body.items.map((x: any) => x.id)).toEqual([reload.id, gift.id]);
    expect((await list(owner.token, '?status=refunded')).body.items).toEqual([]);
    expectResourceError(await list(owner.token, '?status=lost'), 400, 'validation_failed', 'status');
  });

  it('refuses a store manager, a missing session, another program and bad input, changing nothing', async () => {
    const [reload] = (await list(owner.token)).body.items;
    expectResourceError(await list(null), 401, 'missing_credentials');
    expectResourceError(await list(storeManager.token), 403, 'forbidden');
    expectResourceError(await resolve(storeManager.token, reload.id, { action: 'credit' }), 403, 'forbidden');
    expectResourceError(await resolve(null, reload.id, { action: 'credit' }), 401, 'missing_credentials');

    const other = await node.addVendor('Other Program');
    const otherOwner = await ownerOf(asNode(), other.vendorId);
    expect((await list(otherOwner.token, '?status=all')).body.items).toEqual([]);
    expectResourceError(await resolve(otherOwner.token, reload.id, { action: 'credit' }), 404, 'payment_exception_not_found');
    expectResourceError(await resolve(owner.token, 999_999_999, { action: 'credit' }), 404, 'payment_exception_not_found');

    expectResourceError(await resolve(owner.token, reload.id, { action: 'shrug' }), 400, 'validation_failed', 'action');
    expectResourceError(await resolve(owner.token, reload.id, {}), 400, 'validation_failed', 'action');
    expectResourceError(await resolve(owner.token, 'abc', { action: 'credit' }), 400, 'validation_failed', 'id');
    expect(await statusOf(reload.id)).toBe('open');
    expect(await pay.quickPay(customer.key)).toBe(0);
    expect(await audit()).toEqual([]);
  });

  it('a manager credits the refused reload to the customer, audited; a second resolution is 409', async () => {
    const reload = (await list(manager.token)).body.items.find((x: any) => x.kind === 'reload_refused');
    const credited = await resolve(manager.token, reload.id, { action: 'credit' });
    expect(credited.status, JSON.stringify(credited.body)).toBe(200);
    expect(credited.body).toMatchObject({ id: reload.id, status: 'credited', resolution: 'credit', date_resolved: expect.any(String), customer: { first_name: 'Carla' } });
    expect(await pay.quickPay(customer.key)).toBe(30);

    const [entry] = await audit();
    expect(entry).toMatchObject({ actor: manager.email, action: 'payment_exception.credit', object_type: 'payment_exception', object_id: String(reload.id) });
    expect(entry!.before).toMatchObject({ status: 'open', kind: 'reload_refused', amount: 3000, currency: 'USD' });
    expect(entry!.after).toEqual({ status: 'credited', resolution: 'credit' });

    expectResourceError(await resolve(owner.token, reload.id, { action: 'refund' }), 409, 'invalid_status_transition');
    expect(await pay.quickPay(customer.key)).toBe(30);
    expect(await audit()).toHaveLength(1);
    expect((await list(owner.token, '?status=credited')).body.items.map((x: any) => x.id)).toEqual([reload.id]);
  });

  it('the owner refunds the guest eGift through the gateway, audited; a credit is 422 before and 409 after', async () => {
    const gift = (await list(owner.token)).body.items.find((x: any) => x.kind === 'paid_without_gift');
    // No account behind a guest's charge: only a refund.
    expectResourceError(await resolve(owner.token, gift.id, { action: 'credit' }), 422, 'business_rule');
    expect(await audit()).toHaveLength(1);

    const refunded = await resolve(owner.token, gift.id, { action: 'refund' });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'refunded', resolution: 'refund', customer: null });
    const charge = await node.engine.db.selectFrom('payment_charges').select(['status', 'gateway_charge_id']).where('id', '=', gift.charge_id).executeTakeFirstOrThrow();
    expect(charge.status).toBe('refunded');
    const atGateway = await node.engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', charge.gateway_charge_id!).executeTakeFirstOrThrow();
    expect(atGateway.refunded_at).not.toBeNull();

    const entries = await audit();
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ actor: owner.email, action: 'payment_exception.refund', object_id: String(gift.id), after: { status: 'refunded', resolution: 'refund' } });
    expectResourceError(await resolve(owner.token, gift.id, { action: 'credit' }), 409, 'invalid_status_transition');
    expect((await list(owner.token)).body.items).toEqual([]);
    expect((await list(owner.token, '?status=all')).body.items).toHaveLength(2);
  });

  it('a refund whose gateway answer is lost stays refunding, unaudited, until a refund goes through', async () => {
    await giftPaidWithoutGift(asNode(), vendorId, 7, { name: 'Lou Lost', email: 'lou@example.com' });
    const gift = (await list(owner.token)).body.items.find((x: any) => x.amount === 700);
    pay.gateway().loseNextAnswers(1);
    const lost = await resolve(owner.token, gift.id, { action: 'refund' });
    expect([lost.status, lost.body.code]).toEqual([503, 'payment_gateway_unavailable']);
    expect((await list(owner.token)).body.items.find((x: any) => x.id === gift.id)).toMatchObject({ status: 'refunding' });
    expect(await audit()).toHaveLength(2);
    expectResourceError(await resolve(manager.token, gift.id, { action: 'credit' }), 409, 'invalid_status_transition');
    const refunded = await resolve(manager.token, gift.id, { action: 'refund' });
    expect([refunded.status, refunded.body.status]).toEqual([200, 'refunded']);
    expect((await audit())[0]).toMatchObject({ action: 'payment_exception.refund', actor: manager.email, before: { status: 'refunding' } });
  });
});
