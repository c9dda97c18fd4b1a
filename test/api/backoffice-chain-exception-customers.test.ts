import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { placeOrder } from '../../src/core/orders/place-order';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { orderSubject } from '../../src/shared/exception-subject';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import type { TestNode } from '../support/test-node';

// Central's chain page names the customers a sync exception mentions by id (chain-operator report,
// twelfth round: "user 8589934607: … of customer 4294967302"): GET /backoffice/chain gives each
// exception the program's customers its subject and message mention, by name (or email without
// one); another program's customer stays an id. The stored text is unchanged. Over real HTTP, on
// a central node on PostgreSQL.

describe('customers named in sync exceptions', () => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS });
    vendor = await node.addVendor('Cadena Norte');
    owner = await ownerOf(asNode(), vendor.vendorId);
  }, 60_000);
  afterAll(() => node?.close());

  const exception = (subject: string, message: string) =>
    node.engine.db
      .insertInto('sync_exceptions')
      .values({ vendor_id: vendor.vendorId, store_id: vendor.storeId, node_id: null, kind: 'email_conflict', subject, message, created_at: node.clock.now(), resolved_at: null })
      .execute();

  it('names both customers of an exception, the subject’s and the message’s, and leaves its text as stored', async () => {
    const target = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Teresa', last_name: 'Toledo' });
    const holder = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Hugo', last_name: 'Herrera' });
    const message = `email set at the store is held by customer ${holder.userId}; customer ${target.userId} keeps central's`;
    await exception(`user ${target.userId}`, message);

    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const shown = reply.body.exceptions.find((e: { subject: string }) => e.subject === `user ${target.userId}`);
    expect(shown).toMatchObject({ subject: `user ${target.userId}`, message });
    expect(shown.customers).toEqual([
      { id: target.userId, name: 'Teresa Toledo' },
      { id: holder.userId, name: 'Hugo Herrera' },
    ]);
  });

  it('names a customer without a name by email, and never another program’s customer', async () => {
    const nameless = await signUpAt(asNode(), vendor.vendorId);
    await node.engine.db.updateTable('users').set({ first_name: '', last_name: '' }).where('id', '=', nameless.userId).execute();
    const otherVendor = await node.addVendor('Otra Cadena');
    const stranger = await signUpAt(asNode(), otherVendor.vendorId, { first_name: 'Sofía', last_name: 'Secreta' });
    await exception(`user ${nameless.userId}`, `phone set at the store is held by customer ${stranger.userId}; customer ${nameless.userId} keeps central's`);

    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    const shown = reply.body.exceptions.find((e: { subject: string }) => e.subject === `user ${nameless.userId}`);
    expect(shown.customers).toEqual([{ id: nameless.userId, name: nameless.email }]);
    expect(JSON.stringify(reply.body)).not.toContain('Secreta');
  });

  it('an exception about no customer names nobody', async () => {
    await exception('order 77', 'receipt R-1 was already used by order 76; kept as R-1~2');
    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    expect(reply.body.exceptions.find((e: { subject: string }) => e.subject === 'order 77').customers).toEqual([]);
  });

  // Sixteenth round: an order's subject is its internal id ("order 8589934598"); a chain operator
  // knows the sale by its receipt. The listing looks the receipt up (old rows too) and names the
  // customer whose page shows the sale, when they are a member.
  it('gives an order’s exception its receipt and the member whose page shows it, looked up when listed', async () => {
    const olga = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Olga', last_name: 'Ortiz' });
    const gone = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Gonzalo', last_name: 'Ido' });
    const scope = await authenticateApiKey(node.engine, vendor.apiKey);
    await placeOrder(node.engine, scope, { identification: olga.email, receiptNumber: 'T-100', subtotal: 12.5 });
    await placeOrder(node.engine, scope, { identification: gone.email, receiptNumber: 'T-101', subtotal: 3 });
    const idOf = async (receipt: string) => Number((await node.engine.db.selectFrom('orders').select('id').where('receipt_number', '=', receipt).executeTakeFirstOrThrow()).id);
    const [sold, left] = [await idOf('T-100'), await idOf('T-101')];
    await node.engine.db.updateTable('user_vendors').set({ removed_at: node.clock.now() }).where('user_id', '=', gone.userId).execute();
    // Stored as central always wrote them, one through the shared builder, one as an old literal.
    await exception(orderSubject(sold), 'receipt T-100 was already used by order 1; kept as T-100~2');
    await exception(`order ${left}`, 'void of order repeated');
    await exception('order 999999999', 'an order central does not hold');

    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const about = (subject: string) => reply.body.exceptions.find((e: { subject: string }) => e.subject === subject);
    expect(about(`order ${sold}`)).toMatchObject({ subject: `order ${sold}`, order: { id: sold, receipt_number: 'T-100', customer: olga.userId } });
    expect(about(`order ${left}`).order).toEqual({ id: left, receipt_number: 'T-101', customer: null });
    expect(about('order 999999999').order).toBeNull();
    expect(about(`user ${olga.userId}`)?.order ?? null).toBeNull();
    expect(reply.body.exceptions.every((e: { order?: unknown }) => 'order' in e)).toBe(true);
  });

  // Seventeenth round: the message names a sale by central's id too ("already used by order
  // 8589934598"). The listing gives those sales by receipt with their customers, named, so the
  // page says "the sale to Olga Ortiz".
  it('gives the sales a message names, with their customers named', async () => {
    const pia = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Pía', last_name: 'Paz' });
    const scope = await authenticateApiKey(node.engine, vendor.apiKey);
    await placeOrder(node.engine, scope, { identification: pia.email, receiptNumber: 'U-7', subtotal: 4 });
    await placeOrder(node.engine, scope, { identification: pia.email, receiptNumber: 'U-7~2', subtotal: 5 });
    const idOf = async (receipt: string) => Number((await node.engine.db.selectFrom('orders').select('id').where('receipt_number', '=', receipt).executeTakeFirstOrThrow()).id);
    const [first, renamed] = [await idOf('U-7'), await idOf('U-7~2')];
    const said = (order: number) => JSON.stringify({ key: 'receipt_reused', params: { receipt: 'U-7', order, renamed: 'U-7~2' } });
    for (const [subject, order] of [[`order ${renamed}`, first], ['order 999999998', 999999997]] as const) {
      await node.engine.db
        .insertInto('sync_exceptions')
        .values({ vendor_id: vendor.vendorId, store_id: vendor.storeId, node_id: null, kind: 'receipt_reused', subject, message: `receipt U-7 was already used by order ${order}; kept as U-7~2`, message_data: said(order), created_at: node.clock.now(), resolved_at: null })
        .execute();
    }

    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const about = (subject: string) => reply.body.exceptions.find((e: { subject: string }) => e.subject === subject);
    expect(about(`order ${renamed}`)).toMatchObject({
      order: { id: renamed, receipt_number: 'U-7~2', customer: pia.userId },
      mentioned_orders: [{ id: first, receipt_number: 'U-7', customer: pia.userId }],
      customers: [{ id: pia.userId, name: 'Pía Paz' }],
    });
    // An order central does not hold is left out; an exception naming none has none.
    expect(about('order 999999998').mentioned_orders).toEqual([]);
    expect(reply.body.exceptions.every((e: { mentioned_orders?: unknown }) => Array.isArray(e.mentioned_orders))).toBe(true);
  });
});
