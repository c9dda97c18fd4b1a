import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { type Customer, expectLegacyError, loginAt, outboxFilesAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { paymentsApi } from '../support/payments';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// The app's account deletion and money still held (found by an exploratory run: a customer's
// KWD 5.000 stayed as the balance of an erased person). Over real HTTP: money refuses both steps
// unless forfeit_balances; points alone never do; a refusal changes nothing; the email says what
// goes; what goes leaves the ledger as `forfeit` entries (the dashboard's liability falls), on the
// app's path and on staff's removal alike.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
const store = inStoreApi(() => node);
const pay = paymentsApi(() => node);
const newReceipt = receiptCounter('del-bal');

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  // Three digits of minor unit, as the run found it.
  vendor = await setUpVendor(node.engine, { name: 'Souq Café', currency: 'KWD', country: 'KW', store: { name: 'Salmiya', address1: '1 Salem Street', city: 'Salmiya' } });
  owner = await ownerOf(node, vendor.vendorId);
});

afterAll(async () => {
  await node?.close();
});

const submit = (c: Customer, query = '', body?: unknown): Promise<HttpReply> =>
  http(`${node.url}${withSessionKey(`/vendor/${c.vendorId}/customers/${c.userId}/submit`, c.key)}${query}`, { method: 'DELETE', ...(body === undefined ? {} : { body }) });
const confirm = (c: Customer, body: Record<string, unknown>, query = ''): Promise<HttpReply> => http(`${node.url}/vendor/${c.vendorId}/customers${query}`, { method: 'DELETE', body });

/** A member who reloaded KWD 5.000 with a saved card. */
async function memberWithMoney(firstName: string): Promise<Customer> {
  const customer = await signUpAt(node, vendor.vendorId, { first_name: firstName });
  const profile = await pay.addProfileOk(customer.key);
  await pay.reloadOk(customer.key, { user_billingprofile: profile.id, amount: 5 });
  expect(await balances(customer.userId)).toEqual({ money: 5000, points: 0 });
  return customer;
}

/** A member who earned points at the counter (an order of 12.000: 12 points), and holds no money. */
async function memberWithPoints(firstName: string): Promise<Customer> {
  const customer = await signUpAt(node, vendor.vendorId, { first_name: firstName });
  await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: newReceipt(), subtotal: 12 });
  expect(await balances(customer.userId)).toEqual({ money: 0, points: 12 });
  return customer;
}

async function balances(userId: number): Promise<{ money: number; points: number }> {
  const rows = await node.engine.db.selectFrom('ledger_accounts').select(['currency_id', 'balance']).where('holder_type', '=', 'user').where('holder_id', '=', userId).execute();
  const of = (currencyId: number) => Number(rows.find((row) => Number(row.currency_id) === currencyId)?.balance ?? 0);
  return { money: of(vendor.quickPayCurrencyId), points: of(vendor.loyaltyCurrencyId) };
}

const forfeitEntries = (userId: number) =>
  node.engine.db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['e.amount', 'a.currency_id'])
    .where('a.holder_type', '=', 'user')
    .where('a.holder_id', '=', userId)
    .where('e.kind', '=', 'forfeit')
    .orderBy('a.currency_id')
    .execute();

const membership = (userId: number) =>
  node.engine.db.selectFrom('user_vendors').select('removed_at').where('user_id', '=', userId).where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow();

const outboxNames = () => new Set(outboxFilesAt(node, '.eml').map((file) => file.file));

/** The deletion emails sent since `before`: their text and code. */
async function deletionMailsSince(before: Set<string>): Promise<Array<{ text: string; code: string }>> {
  await node.messaging.drain();
  const fresh = outboxFilesAt(node, '.eml').filter((file) => !before.has(file.file));
  const texts = await Promise.all(fresh.map(async (file) => (await PostalMime.parse(file.text)).text ?? ''));
  return texts.filter((text) => text.includes('delete')).map((text) => ({ text, code: /\b[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}\b/.exec(text)?.[0] ?? '' }));
}

async function outstanding(): Promise<{ now: number; forfeitedToday: number }> {
  const reply = await staffCall(node, owner.token, 'GET', '/backoffice/dashboard');
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { now: reply.body.outstanding_stored_value, forfeitedToday: reply.body.today.stored_value_forfeited };
}

describe('deleting an account that holds money', () => {
  it('refuses at submit while the customer holds money: 409 stored_value_remaining, no code sent, nothing changed', async () => {
    const ana = await memberWithMoney('Ana');
    const before = outboxNames();
    const refused = await submit(ana);
    expectLegacyError(refused, 409, 'stored_value_remaining', 'forfeit_balances');
    expect(refused.body.error.errors[0].message).toMatch(/You still hold money here/);
    const refusedToo = await submit(ana, '&forfeit_balances=false');
    expectLegacyError(refusedToo, 409, 'stored_value_remaining', 'forfeit_balances');
    expect(await deletionMailsSince(before)).toEqual([]);
    expect((await membership(ana.userId)).removed_at).toBeNull();
    expect(await balances(ana.userId)).toEqual({ money: 5000, points: 0 });
    expect(await forfeitEntries(ana.userId)).toEqual([]);
    expect((await loginAt(node, ana.email, PASSWORD, vendor.vendorId)).status).toBe(200);
  });

  it('with forfeit_balances the customer gives it up knowingly: the email says KWD 5.000 and the points, the ledger brings both to zero, the liability falls', async () => {
    const bea = await memberWithMoney('Bea');
    await store.orderOk(vendor.apiKey, { card_number: bea.email, receipt_number: newReceipt(), subtotal: 7 });
    expect(await balances(bea.userId)).toEqual({ money: 5000, points: 7 });
    const dashboardBefore = await outstanding();

    const before = outboxNames();
    const submitted = await submit(bea, '&forfeit_balances=true');
    expect([submitted.status, submitted.body]).toEqual([200, {}]);
    const [mail] = await deletionMailsSince(before);
    expect(mail!.text).toContain('gives up what you still hold with Souq Café: KWD 5.000 and 7 Points.');

    // The balance is asked again at confirm: the flag is needed there too.
    expectLegacyError(await confirm(bea, { code: mail!.code }), 409, 'stored_value_remaining', 'forfeit_balances');
    expect((await membership(bea.userId)).removed_at).toBeNull();
    const confirmed = await confirm(bea, { code: mail!.code, forfeit_balances: true });
    expect([confirmed.status, confirmed.body]).toEqual([200, {}]);

    const person = await node.engine.db.selectFrom('users').select(['status', 'first_name']).where('id', '=', bea.userId).executeTakeFirstOrThrow();
    expect(person).toEqual({ status: 'deleted', first_name: '' });
    expect(await balances(bea.userId)).toEqual({ money: 0, points: 0 });
    expect((await forfeitEntries(bea.userId)).map((entry) => [Number(entry.currency_id), Number(entry.amount)])).toEqual(
      [
        [vendor.quickPayCurrencyId, -5000],
        [vendor.loyaltyCurrencyId, -7],
      ].sort((a, b) => a[0]! - b[0]!),
    );
    const dashboardAfter = await outstanding();
    expect(dashboardAfter.now).toBe(dashboardBefore.now - 5000);
    expect(dashboardAfter.forfeitedToday).toBe(dashboardBefore.forfeitedToday - 5000);
  });

  it('points alone never block: deleted without the flag, the email names the points, and they go to zero', async () => {
    const caro = await memberWithPoints('Caro');
    const before = outboxNames();
    expect((await submit(caro)).status).toBe(200);
    const [mail] = await deletionMailsSince(before);
    expect(mail!.text).toContain('gives up what you still hold with Souq Café: 12 Points.');
    expect((await confirm(caro, { code: mail!.code })).status).toBe(200);
    expect((await membership(caro.userId)).removed_at).not.toBeNull();
    expect(await balances(caro.userId)).toEqual({ money: 0, points: 0 });
  });

  it('a customer who holds nothing gets the email without a word about giving anything up', async () => {
    const dani = await signUpAt(node, vendor.vendorId, { first_name: 'Dani' });
    const before = outboxNames();
    expect((await submit(dani)).status).toBe(200);
    const [mail] = await deletionMailsSince(before);
    expect(mail!.text).not.toContain('gives up');
    expect((await confirm(dani, { code: mail!.code })).status).toBe(200);
    expect(await forfeitEntries(dani.userId)).toEqual([]);
  });

  it('confirm checks again: money that came after the code refuses it, the code stays good, and the flag in the query (or in the body of submit) is taken', async () => {
    const eli = await signUpAt(node, vendor.vendorId, { first_name: 'Eli' });
    // The flag in submit's body is taken as well as in its query (nothing held yet: it changes nothing here).
    const before = outboxNames();
    expect((await submit(eli, '', { forfeit_balances: true })).status).toBe(200);
    const [mail] = await deletionMailsSince(before);
    const profile = await pay.addProfileOk(eli.key);
    await pay.reloadOk(eli.key, { user_billingprofile: profile.id, amount: 5 });

    expectLegacyError(await confirm(eli, { code: mail!.code }), 409, 'stored_value_remaining', 'forfeit_balances');
    expect((await membership(eli.userId)).removed_at).toBeNull();
    expect(await balances(eli.userId)).toEqual({ money: 5000, points: 0 });
    expect((await loginAt(node, eli.email, PASSWORD, vendor.vendorId)).status).toBe(200);

    const confirmed = await confirm(eli, { code: mail!.code }, '?forfeit_balances=true');
    expect([confirmed.status, confirmed.body]).toEqual([200, {}]);
    expect(await balances(eli.userId)).toEqual({ money: 0, points: 0 });
  });

  it('the flag in the body of submit is taken for money too', async () => {
    const fede = await memberWithMoney('Fede');
    const before = outboxNames();
    expect((await submit(fede, '', { forfeit_balances: true })).status).toBe(200);
    const [mail] = await deletionMailsSince(before);
    expect(mail!.text).toContain('KWD 5.000');
    expect((await confirm(fede, { code: mail!.code, forfeit_balances: 'true' })).status).toBe(200);
    expect(await balances(fede.userId)).toEqual({ money: 0, points: 0 });
  });

  it("staff's removal with forfeit_balances also brings what was held to zero, and the liability falls", async () => {
    const gabi = await memberWithMoney('Gabi');
    const dashboardBefore = await outstanding();
    const removed = await staffCall(node, owner.token, 'POST', `/backoffice/customers/${gabi.userId}/remove`, { reason: 'Asked at the counter', forfeit_balances: true });
    expect([removed.status, removed.body]).toEqual([200, { removed: true, erased: true }]);
    expect(await balances(gabi.userId)).toEqual({ money: 0, points: 0 });
    expect((await forfeitEntries(gabi.userId)).map((entry) => Number(entry.amount))).toEqual([-5000]);
    expect((await outstanding()).now).toBe(dashboardBefore.now - 5000);
  });
});
