import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { type Customer, expectLegacyError, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { expectResourceError } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// A copy of a person's data (GDPR access and portability), over real HTTP on SQLite and
// PostgreSQL: staff download a member's from the back office (GET /backoffice/customers/:id/
// personal-data), a logged-in customer their own (GET /user/personal-data). Seeded through the real
// calls (register, a loyalty card, check-in, an order, a card saved and a reload): the document holds
// what the person has and nothing of another customer, no secret, no card number; audited;
// refused to roles and credentials that may not, with stable codes; an erased person is not found.

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

describe.each(NODES)('a copy of a person’s data on $name', ({ start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  const store = inStoreApi(asNode);
  const pay = paymentsApi(asNode);
  let vendor: VendorCredentials;
  let other: VendorCredentials;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;
  let otherOwner: SignedInStaff;
  let lucia: Customer;
  let pablo: Customer;

  /** A member with a linked loyalty card, a visit, an order with items, a saved card and a reload. */
  async function memberWithHistory(first: string, last: string, card: string, receipt: string): Promise<Customer> {
    const c = await signUpAt(asNode(), vendor.vendorId, { first_name: first, last_name: last, contact_consent: 2 });
    expect((await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: card } })).status).toBe(201);
    expect((await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: { number: card } })).status).toBe(200);
    const session = (await store.checkInOk(vendor.apiKey, card)).pos_session;
    await store.orderOk(vendor.apiKey, { pos_session_hash: session.hash, receipt_number: receipt, subtotal: 12, items: [{ name: `${first}'s café con leche`, quantity: 2, price: 6, sku: 'CCL' }] });
    const profile = (await pay.addProfileOk(c.key)).id;
    await pay.reloadOk(c.key, { user_billingprofile: profile, amount: 25 });
    return c;
  }

  beforeAll(async () => {
    node = await start();
    vendor = await node.addVendor('Café Sol');
    other = await node.addVendor('Café Luna');
    owner = await ownerOf(asNode(), vendor.vendorId);
    manager = await invitedStaff(asNode(), owner, 'manager');
    storeManager = await invitedStaff(asNode(), owner, 'store_manager', vendor.storeId);
    otherOwner = await ownerOf(asNode(), other.vendorId);
    lucia = await memberWithHistory('Lucía', 'Fernández', '7001000100', 'R-LUCIA-1');
    pablo = await memberWithHistory('Pablo', 'Ortega', '7001000200', 'R-PABLO-1');
  }, 120_000);
  afterAll(() => node?.close());

  const staffExport = (who: SignedInStaff | string | null, id: number | string): Promise<HttpReply> =>
    staffCall(asNode(), typeof who === 'object' && who !== null ? who.token : who, 'GET', `/backoffice/customers/${id}/personal-data`);
  const ownExport = (key: string): Promise<HttpReply> => http(`${node.url}${withSessionKey('/user/personal-data', key)}`);

  /** What the document must hold of `c` (Lucía or Pablo, seeded alike) and must not of `stranger`. */
  function expectDocumentOf(reply: HttpReply, c: Customer, names: { first: string; last: string; card: string; receipt: string }, stranger: { email: string; first: string; card: string; receipt: string }) {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="personal-data-${c.userId}-\\d{4}-\\d{2}-\\d{2}\\.json"$`));
    const d = reply.body;
    expect(d).toMatchObject({ format: 'punchcard.personal-data', version: 1, program: { id: vendor.vendorId, name: 'Café Sol' } });
    expect(d.person).toMatchObject({ id: c.userId, first_name: names.first, last_name: names.last, email: c.email, status: expect.any(String) });
    expect(d.membership).toMatchObject({ contact_consent: { email: false, sms: true }, referral_code: expect.any(String), joined_through_referral: false, auto_reload: { amount: 0, threshold: 0 } });
    const points = d.balances.find((b: any) => b.code === null);
    const quickPay = d.balances.find((b: any) => b.code === 'USD');
    expect(points.balance).toBe(12);
    expect(quickPay.balance).toBe(2500);
    expect(d.loyalty_cards).toEqual([expect.objectContaining({ number: names.card, removed_at: null })]);
    expect(d.payment_cards).toEqual([expect.objectContaining({ brand: expect.any(String), last4: CARDS.visa.slice(-4), default: true, removed_at: null })]);
    expect(d.orders).toEqual([
      expect.objectContaining({ receipt_number: names.receipt, store: expect.stringMatching(/^Main/), subtotal: 1200, points_earned: 12, status: expect.any(String), items: [expect.objectContaining({ name: `${names.first}'s café con leche`, quantity: 2 })] }),
    ]);
    expect(d.ledger.map((e: any) => e.kind)).toEqual(expect.arrayContaining(['earn', 'reload']));
    expect(d.ledger.find((e: any) => e.receipt_number === names.receipt)).toMatchObject({ store: expect.stringMatching(/^Main/), amount: 12 });
    expect(d.check_ins).toEqual([expect.objectContaining({ store: expect.stringMatching(/^Main/), card_number: names.card })]);
    expect(d.payments).toEqual([expect.objectContaining({ purpose: expect.any(String), amount: 2500, currency: 'USD' })]);
    expect(d.history.map((t: any) => t.kind)).toEqual(expect.arrayContaining(['reload']));
    expect(d.app_sessions.length).toBeGreaterThanOrEqual(1);
    expect(Array.isArray(d.inbox)).toBe(true);
    const text = JSON.stringify(d);
    // Nothing of the other customer, no card number, no secret.
    for (const theirs of [stranger.email, stranger.first, stranger.card, stranger.receipt]) expect(text).not.toContain(theirs);
    expect(text).not.toContain(CARDS.visa);
    expect(text).not.toMatch(/argon2|password|token|key_hash|code_hash/i);
  }
  const LUCIA = { first: 'Lucía', last: 'Fernández', card: '7001000100', receipt: 'R-LUCIA-1' };
  const PABLO = { first: 'Pablo', last: 'Ortega', card: '7001000200', receipt: 'R-PABLO-1' };

  it('an owner downloads what the program holds of a member, nothing of another, and the audit log says who and when', async () => {
    const reply = await staffExport(owner, lucia.userId);
    expectDocumentOf(reply, lucia, LUCIA, { email: pablo.email, ...PABLO });
    const audit = await staffCall(asNode(), owner.token, 'GET', '/backoffice/audit?limit=10');
    expect(audit.status).toBe(200);
    const entry = audit.body.items.find((e: any) => e.action === 'customer.data_exported');
    expect(entry).toMatchObject({ actor: owner.email, object_type: 'customer', object_id: String(lucia.userId) });
  });

  it('a logged-in customer downloads the same document, their own only', async () => {
    expectDocumentOf(await ownExport(pablo.key), pablo, PABLO, { email: lucia.email, ...LUCIA });
    const staffs = await staffExport(manager, pablo.userId);
    const own = await ownExport(pablo.key);
    // The same shape and content, but for the moment it was made.
    expect({ ...own.body, generated_at: null }).toEqual({ ...staffs.body, generated_at: null });
  });

  it('refused with stable codes: a store manager, a till key, another program’s owner, a customer’s session, no credential', async () => {
    expectResourceError(await staffExport(storeManager, lucia.userId), 403, 'forbidden');
    expectResourceError(await staffExport(vendor.apiKey, lucia.userId), 401, 'invalid_session');
    expectResourceError(await staffExport(lucia.key, lucia.userId), 401, 'invalid_session');
    expectResourceError(await staffExport(null, lucia.userId), 401, 'missing_credentials');
    expectResourceError(await staffExport(otherOwner, lucia.userId), 404, 'customer_not_found');
    expectResourceError(await staffExport(owner, 987_654_321), 404, 'customer_not_found');
    expect((await staffExport(owner, 'abc')).status).toBe(400);
    expectLegacyError(await http(`${node.url}/user/personal-data?api_key=${encodeURIComponent(vendor.apiKey)}`), 401, 'missing_credentials');
    expectLegacyError(await ownExport('not-a-session'), 401, 'invalid_session');
    // Nothing of the refusals reached the audit log.
    const audit = await staffCall(asNode(), owner.token, 'GET', '/backoffice/audit?limit=100');
    expect(audit.body.items.filter((e: any) => e.action === 'customer.data_exported' && e.actor !== owner.email && e.actor !== manager.email)).toEqual([]);
  });

  it('a member another program’s counter enrolled is given to staff as the program sees them: name and initial, no contact', async () => {
    const irene = await signUpAt(asNode(), other.vendorId, { first_name: 'Irene', last_name: 'Montero' });
    await store.orderOk(vendor.apiKey, { card_number: irene.email, receipt_number: 'R-IRENE-1', subtotal: 3 });
    const reply = await staffExport(owner, irene.userId);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.person).toMatchObject({ first_name: 'Irene', last_name: 'M.', email: null, phone: null });
    expect(reply.body.membership.enrolled_by_another_programs_counter).toBe(true);
    expect(reply.body.orders.map((o: any) => o.receipt_number)).toEqual(['R-IRENE-1']);
    expect(JSON.stringify(reply.body)).not.toContain(irene.email);
    // Nothing of the program she joined herself.
    expect(reply.body.program.id).toBe(vendor.vendorId);
    expect(reply.body.inbox.map((m: any) => m.title).join()).not.toContain('Café Luna');
  });

  it('an erased person is not found: staff get 404 customer_not_found, their old session 401', async () => {
    const gone = await memberWithHistory('Marta', 'Gil', '7001000300', 'R-MARTA-1');
    expect((await staffExport(owner, gone.userId)).status).toBe(200);
    const removed = await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${gone.userId}/remove`, { reason: 'Asked by letter', forfeit_balances: true });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.erased).toBe(true);
    expectResourceError(await staffExport(owner, gone.userId), 404, 'customer_not_found');
    expect((await ownExport(gone.key)).status).toBe(401);
  });
});

// Seventeenth round: staff's downloads had no limit, so a manager's session (or a stolen one) could
// take every member's contacts one by one, which only owners may download whole.
describe('staff copies are rate limited per staff member', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ rateLimits: { ...ROOMY_RATE_LIMITS, staffPersonalData: { perClient: 100, perAccount: 2, windowSeconds: 3600 } } });
  });
  afterAll(() => node?.close());

  it('a third copy within the hour is 429 rate_limited for that staff member; another still gets one', async () => {
    const vendor = await node.addVendor();
    const [owner, other] = [await ownerOf(node, vendor.vendorId), await ownerOf(node, vendor.vendorId)];
    const member = await signUpAt(node, vendor.vendorId);
    const get = (who: SignedInStaff) => staffCall(node, who.token, 'GET', `/backoffice/customers/${member.userId}/personal-data`);
    expect((await get(owner)).status).toBe(200);
    expect((await get(owner)).status).toBe(200);
    const refused = await get(owner);
    expectResourceError(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await get(other)).status).toBe(200);
  });
});

describe('a customer’s own copy is rate limited', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ rateLimits: { ...ROOMY_RATE_LIMITS, personalData: { perClient: 100, perAccount: 2, windowSeconds: 3600 } } });
  });
  afterAll(() => node?.close());

  it('a third copy within the hour is 429 rate_limited, another customer still gets theirs', async () => {
    const vendor = await node.addVendor();
    const [ana, ben] = [await signUpAt(node, vendor.vendorId), await signUpAt(node, vendor.vendorId)];
    const get = (c: Customer) => http(`${node.url}${withSessionKey('/user/personal-data', c.key)}`);
    expect((await get(ana)).status).toBe(200);
    expect((await get(ana)).status).toBe(200);
    expectLegacyError(await get(ana), 429, 'rate_limited');
    expect((await get(ben)).status).toBe(200);
  });
});
