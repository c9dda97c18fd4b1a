import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, signIn, staffCall } from '../support/backoffice';
import { loginOkAt, PASSWORD, phoneOnlyGuestAt, registerOkAt, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Customers in the back office over real HTTP: search by any identifier or a name, the profile with
// balances and ledger, a balance adjustment as a compensating ledger entry with its audit record,
// and who may see or adjust whom.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let manager: SignedInStaff;
let storeManager: SignedInStaff;
let otherOwner: SignedInStaff;
let ana: { id: number; email: string };
let pointsId: string;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Café Andino');
  owner = await ownerOf(node, vendor.vendorId);
  manager = await invitedStaff(node, owner, 'manager');
  storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
  otherOwner = await ownerOf(node, (await node.addVendor()).vendorId);
  const registered = await registerOkAt(node, vendor.vendorId, { first_name: 'Ana', last_name: 'Zambrano' });
  ana = { id: Number(registered.user.id), email: registered.email };
  const currency = await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
  pointsId = currency.public_id;
});

afterAll(async () => {
  await node?.close();
});

const search = (who: SignedInStaff, q: string) => staffCall(node, who.token, 'GET', `/backoffice/customers?q=${encodeURIComponent(q)}`);
const profile = (who: SignedInStaff) => staffCall(node, who.token, 'GET', `/backoffice/customers/${ana.id}`);
const adjust = (who: SignedInStaff, body: unknown) => staffCall(node, who.token, 'POST', `/backoffice/customers/${ana.id}/adjustments`, body);

describe('search', () => {
  it('finds a customer by email (any case) or by the start of a name, and nobody for a stranger', async () => {
    const byEmail = await search(manager, ana.email.toUpperCase());
    expect(byEmail.body.items).toHaveLength(1);
    expect(byEmail.body.items[0]).toMatchObject({ id: ana.id, first_name: 'Ana', last_name: 'Zambrano', email: ana.email, matched_by: 'email' });
    const byName = await search(manager, 'zamb');
    expect(byName.body.items.map((c: { id: number; matched_by: string }) => [c.id, c.matched_by])).toEqual([[ana.id, 'name']]);
    expect((await search(manager, 'nobody@nowhere.test')).body.items).toEqual([]);
    expect((await search(otherOwner, ana.email)).body.items).toEqual([]);
  });

  it('finds a name typed without its accents, or with them in capitals', async () => {
    const registered = await registerOkAt(node, vendor.vendorId, { first_name: 'Íñigo', last_name: 'Núñez' });
    for (const q of ['nunez', 'NÚÑ', 'inigo']) {
      const found = await search(manager, q);
      expect(found.status).toBe(200);
      expect(found.body.items.map((c: { id: number; last_name: string }) => [c.id, c.last_name])).toEqual([[Number(registered.user.id), 'Núñez']]);
    }
  });
  it('finds a full name in either order, with or without accents, and a name of several words whole', async () => {
    const jose = Number((await registerOkAt(node, vendor.vendorId, { first_name: 'José', last_name: 'Ibáñez' })).user.id);
    const maria = Number((await registerOkAt(node, vendor.vendorId, { first_name: 'María José', last_name: 'de la Cruz' })).user.id);
    // A namesake of one half only is not a match.
    await registerOkAt(node, vendor.vendorId, { first_name: 'José', last_name: 'Zapata' });
    const ids = async (q: string) => (await search(manager, q)).body.items.map((c: { id: number }) => c.id);
    for (const q of ['José Ibáñez', 'jose ibanez', 'Ibanez Jose', 'jos iba', '  JOSÉ   IBÁÑEZ ']) expect(await ids(q), q).toEqual([jose]);
    for (const q of ['María José de la Cruz', 'maria jose', 'de la cruz', 'de la Cruz María']) expect(await ids(q), q).toEqual([maria]);
    // Each name matches from its start: "Cruz" is not how "de la Cruz" begins.
    for (const q of ['José Nobody', 'Cruz María']) expect(await ids(q), q).toEqual([]);
  });
});

describe('an email for a customer who has none', () => {
  const phoneGuest = (number: string) => phoneOnlyGuestAt(node, vendor.apiKey, { number, code: '1', e164: `+1${number}` });
  const addEmail = (who: SignedInStaff, id: number, email: unknown) => staffCall(node, who.token, 'PUT', `/backoffice/customers/${id}/email`, { email });
  const userRow = (id: number) => node.engine.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('a manager adds one to a phone-only guest: in the profile, audited, and never twice', async () => {
    const id = await phoneGuest('2025550141');
    const added = await addEmail(manager, id, '  Pia.Guest@Example.com ');
    expect([added.status, added.body]).toEqual([200, { email: 'Pia.Guest@Example.com' }]);
    expect(await userRow(id)).toMatchObject({ email: 'Pia.Guest@Example.com', email_key: 'pia.guest@example.com', email_verified_at: null });
    expect((await staffCall(node, owner.token, 'GET', `/backoffice/customers/${id}`)).body.email).toBe('Pia.Guest@Example.com');
    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=customer&limit=1')).body.items;
    expect(audit[0]).toMatchObject({ action: 'customer.email_added', actor: manager.email, before: { email: null }, after: { email: 'Pia.Guest@Example.com' } });
    // Once there, the address is the customer's to change (their profile in the app).
    const again = await addEmail(owner, id, 'other@example.com');
    expect([again.status, again.body.code, again.body.field]).toEqual([409, 'invalid_status_transition', 'email']);
  });

  it('refuses an address another customer has, a malformed one, a store manager and another program, and changes nothing', async () => {
    const id = await phoneGuest('2025550142');
    const before = await userRow(id);
    const taken = await addEmail(owner, id, ana.email.toUpperCase());
    expect([taken.status, taken.body.code]).toEqual([409, 'email_taken']);
    const malformed = await addEmail(owner, id, 'not an email');
    expect([malformed.status, malformed.body.code, malformed.body.field]).toEqual([400, 'invalid_email', 'email']);
    expect((await addEmail(owner, id, 42)).status).toBe(400);
    expect((await addEmail(storeManager, id, 'sm@example.com')).status).toBe(403);
    expect((await addEmail(otherOwner, id, 'stranger@example.com')).status).toBe(404);
    expect((await addEmail(owner, 999_999_999, 'nobody@example.com')).status).toBe(404);
    expect(await userRow(id)).toStrictEqual(before);
  });

  it('is left to central at a paired store: 409 customer_email_managed_by_central', async () => {
    const id = await phoneGuest('2025550143');
    node.engine.programRole = 'replica';
    try {
      const refused = await addEmail(owner, id, 'paired@example.com');
      expect([refused.status, refused.body.code]).toEqual([409, 'customer_email_managed_by_central']);
      expect((await userRow(id)).email).toBeNull();
    } finally {
      node.engine.programRole = 'owner';
    }
  });
});

describe('balance adjustment', () => {
  it('posts a compensating ledger entry, shown in the profile, with who and why in the audit log', async () => {
    const made = await adjust(manager, { currency: pointsId, amount: 50, reason: 'Coffee machine broke during her visit' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.balance).toBe(50);
    const shown = await profile(manager);
    expect(shown.body.balances.find((b: { currency: string }) => b.currency === pointsId).balance).toBe(50);
    expect(shown.body.ledger[0]).toMatchObject({ id: made.body.ledger_entry, amount: 50, kind: 'adjustment', currency: pointsId, reference_type: 'staff', reference_id: String(manager.id) });
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=customer&limit=1');
    expect(audit.body.items[0]).toMatchObject({
      actor: manager.email,
      action: 'customer.adjust_balance',
      object_id: String(ana.id),
      before: { currency: pointsId, balance: 0 },
      after: { currency: pointsId, balance: 50, amount: 50, reason: 'Coffee machine broke during her visit', ledger_entry: made.body.ledger_entry },
    });
    await expectBalancesAddUp(node);
  });

  it('refuses a debit below zero, no reason, a zero or huge amount or an unknown currency, and changes nothing', async () => {
    const before = (await profile(owner)).body.ledger.length;
    const below = await adjust(owner, { currency: pointsId, amount: -51, reason: 'Too much' });
    expect([below.status, below.body.code]).toEqual([422, 'business_rule']);
    const noReason = await adjust(owner, { currency: pointsId, amount: 5, reason: ' ' });
    expect([noReason.status, noReason.body.field]).toEqual([400, 'reason']);
    const zero = await adjust(owner, { currency: pointsId, amount: 0, reason: 'Nothing' });
    expect([zero.status, zero.body.field]).toEqual([400, 'amount']);
    for (const amount of [1_000_000_001, -1_000_000_001, Number.MAX_SAFE_INTEGER]) {
      const huge = await adjust(owner, { currency: pointsId, amount, reason: 'A typo' });
      expect([huge.status, huge.body.field], String(amount)).toEqual([400, 'amount']);
      expect(huge.body.message).toBe('amount must be at most 1,000,000,000 Points either way.');
    }
    // told in the currency's units, as staff type them (it said "1,000,000,000 minor units")
    const usd = await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', vendor.quickPayCurrencyId).executeTakeFirstOrThrow();
    const hugeMoney = await adjust(owner, { currency: usd.public_id, amount: 1_000_000_001, reason: 'A typo' });
    expect([hugeMoney.status, hugeMoney.body.message]).toEqual([400, 'amount must be at most 10,000,000.00 USD either way.']);
    const unknown = await adjust(owner, { currency: 'curr_00000000000000000000', amount: 5, reason: 'Nothing' });
    expect([unknown.status, unknown.body.code]).toEqual([422, 'unknown_currency']);
    expect((await profile(owner)).body.ledger).toHaveLength(before);
  });

  it('credits a balance already below zero (a voided order whose points were spent), while a debit there is still refused', async () => {
    const registered = await registerOkAt(node, vendor.vendorId, { first_name: 'Neg', last_name: 'Balance' });
    const userId = Number(registered.user.id);
    await transact(node.engine, async (trx) => {
      const account = await openAccount(trx, node.engine, { vendorId: vendor.vendorId, currencyId: vendor.loyaltyCurrencyId, holderType: 'user', holderId: userId });
      await postEntry(trx, node.engine, account, { amount: -100, kind: 'earn_reversal' });
    });
    const adjustHer = (amount: number) => staffCall(node, owner.token, 'POST', `/backoffice/customers/${userId}/adjustments`, { currency: pointsId, amount, reason: 'Settling the void' });
    const credit = await adjustHer(30);
    expect([credit.status, credit.body.balance]).toEqual([201, -70]);
    const debit = await adjustHer(-1);
    expect([debit.status, debit.body.code]).toEqual([422, 'business_rule']);
    await expectBalancesAddUp(node);
  });
});

describe('who may see and adjust whom', () => {
  it('a store manager sees a customer only once they came to their store, and never adjusts', async () => {
    expect((await search(storeManager, ana.email)).body.items).toEqual([]);
    expect((await profile(storeManager)).status).toBe(403);
    await inStoreApi(() => node).checkInOk(vendor.apiKey, ana.email);
    expect((await search(storeManager, ana.email)).body.items.map((c: { id: number }) => c.id)).toEqual([ana.id]);
    expect((await profile(storeManager)).status).toBe(200);
    const refused = await adjust(storeManager, { currency: pointsId, amount: 5, reason: 'Trying' });
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
  });

  it('another vendor’s staff get 404, and no token 401', async () => {
    expect((await profile(otherOwner)).body.code).toBe('customer_not_found');
    expect((await adjust(otherOwner, { currency: pointsId, amount: 5, reason: 'Trying' })).status).toBe(404);
    expect((await staffCall(node, null, 'GET', `/backoffice/customers/${ana.id}`)).status).toBe(401);
  });
});

describe('the profile: what expires when, and saved cards masked', () => {
  const DAY = 24 * 3600_000;

  it('shows each balance with its expiring amounts (spending uses the soonest first) and billing profiles as brand, last four and expiry only', async () => {
    const sol = await node.addVendor('Panadería Sol');
    const solOwner = await ownerOf(node, sol.vendorId);
    expect((await staffCall(node, solOwner.token, 'PUT', '/backoffice/program/settings', { points_expiry_days: 30 })).status).toBe(200);
    const lia = await signUpAt(node, sol.vendorId, { first_name: 'Lía', last_name: 'Mora' });
    const order = (receipt: string, subtotal: number) =>
      http(`${node.url}/order?api_key=${encodeURIComponent(sol.apiKey)}`, { method: 'POST', body: { card_number: lia.email, receipt_number: receipt, subtotal } });

    const payments = paymentsApi(() => node);
    await payments.addProfileOk(lia.key, CARDS.visa);
    await payments.addProfileOk(lia.key, CARDS.mastercard, { expiry_month: '3' });
    const year = new Date(node.clock.now()).getUTCFullYear() + 3;

    const start = node.clock.now();
    expect((await order('sol-1', 12)).body.points_earned).toBe(12);
    node.clock.advance(10 * DAY);
    expect((await order('sol-2', 8)).body.points_earned).toBe(8);
    // Ten days on, the staff session has idled out: sign in again.
    solOwner.token = await signIn(node, solOwner.email);
    const points = (await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', sol.loyaltyCurrencyId).executeTakeFirstOrThrow()).public_id;
    // 20 points earned in two lots, 5 taken back: what is spent comes out of the soonest lot.
    const made = await staffCall(node, solOwner.token, 'POST', `/backoffice/customers/${lia.userId}/adjustments`, { currency: points, amount: -5, reason: 'Counted by hand' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    const shown = await staffCall(node, solOwner.token, 'GET', `/backoffice/customers/${lia.userId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.balances.find((b: { currency: string }) => b.currency === points)).toEqual({
      currency: points,
      name: expect.any(String),
      code: null,
      balance: 15,
      expiring: [
        { date: new Date(start + 30 * DAY).toISOString(), amount: 7 },
        { date: new Date(start + 40 * DAY).toISOString(), amount: 8 },
      ],
    });
    expect(shown.body.balances.find((b: { code: string | null }) => b.code === 'USD')).toMatchObject({ balance: 0, expiring: [] });
    expect(shown.body.billing_profiles).toEqual([
      { brand: 'Mastercard', last4: '4444', expiry_month: 3, expiry_year: year, default: false },
      { brand: 'Visa', last4: '4242', expiry_month: 12, expiry_year: year, default: true },
    ]);
    const text = JSON.stringify(shown.body);
    for (const secret of ['4242 4242', '42424242', 'Ana López', '10001', 'tok_']) expect(text).not.toContain(secret);
  });

  it('groups what expires by the program’s days, not UTC’s, and names the zone the screen shows them in', async () => {
    const bodega = await node.addVendor('Bodega NYC');
    const bodegaOwner = await ownerOf(node, bodega.vendorId);
    const zoned = await staffCall(node, bodegaOwner.token, 'PUT', `/backoffice/stores/${bodega.storeId}`, { time_zone: 'America/New_York' });
    expect(zoned.status, JSON.stringify(zoned.body)).toBe(200);
    expect((await staffCall(node, bodegaOwner.token, 'PUT', '/backoffice/program/settings', { points_expiry_days: 30 })).status).toBe(200);
    const leo = await signUpAt(node, bodega.vendorId, { first_name: 'Leo', last_name: 'Park' });
    const order = (receipt: string) =>
      http(`${node.url}/order?api_key=${encodeURIComponent(bodega.apiKey)}`, { method: 'POST', body: { card_number: leo.email, receipt_number: receipt, subtotal: 10 } });
    // One UTC day, two New York days: 21:30 on the 28th and 00:30 on 1 March there.
    node.clock.set(Date.parse('2027-03-01T02:30:00Z'));
    expect((await order('nyc-1')).body.points_earned).toBe(10);
    node.clock.set(Date.parse('2027-03-01T05:30:00Z'));
    expect((await order('nyc-2')).body.points_earned).toBe(10);
    bodegaOwner.token = await signIn(node, bodegaOwner.email);

    const shown = await staffCall(node, bodegaOwner.token, 'GET', `/backoffice/customers/${leo.userId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.time_zone).toBe('America/New_York');
    expect(shown.body.balances.find((b: { code: string | null }) => b.code === null).expiring).toEqual([
      { date: '2027-03-31T02:30:00.000Z', amount: 10 },
      { date: '2027-03-31T05:30:00.000Z', amount: 10 },
    ]);

    // A zone this node cannot read (written before it was checked) is counted, and named, as UTC.
    await node.engine.db.updateTable('stores').set({ time_zone: 'Mars/Olympus_Mons' }).where('id', '=', bodega.storeId).execute();
    const unread = await staffCall(node, bodegaOwner.token, 'GET', `/backoffice/customers/${leo.userId}`);
    expect(unread.body.time_zone).toBe('UTC');
    expect(unread.body.balances.find((b: { code: string | null }) => b.code === null).expiring).toEqual([{ date: '2027-03-31T02:30:00.000Z', amount: 20 }]);
  });
});

describe('the profile: birthday, contact consent, language and member since', () => {
  // 15 March 1990 as sign-up sends it: Unix seconds of its UTC midnight.
  const MARCH_15_1990 = Date.UTC(1990, 2, 15) / 1000;
  // The clock moved on above: sessions signed in afresh.
  let token: string;
  beforeAll(async () => {
    token = await signIn(node, owner.email);
  });
  const shownTo = (id: number | string) => staffCall(node, token, 'GET', `/backoffice/customers/${id}`);

  it('shows what the member gave at sign-up, each consent as its two channels, and nothing given as null / none', async () => {
    const cases = [
      { consent: 3, language: 2, expected: { email: true, sms: true }, code: 'es' },
      { consent: 1, language: 1, expected: { email: true, sms: false }, code: 'en' },
      { consent: 2, language: undefined, expected: { email: false, sms: true }, code: null },
    ];
    for (const c of cases) {
      const joined = node.clock.now();
      const registered = await registerOkAt(node, vendor.vendorId, { first_name: 'Eva', last_name: 'Paz', birthdate: MARCH_15_1990, contact_consent: c.consent, ...(c.language ? { language: c.language } : {}) });
      const shown = await shownTo(registered.user.id);
      expect(shown.status, JSON.stringify(shown.body)).toBe(200);
      expect(shown.body, String(c.consent)).toMatchObject({ birthdate: '1990-03-15', contact_consent: c.expected, language: c.code, member_since: new Date(joined).toISOString() });
    }
    // Ana gave none of them: no birthday, no consent, the program's language.
    expect((await shownTo(ana.id)).body).toMatchObject({ birthdate: null, contact_consent: { email: false, sms: false }, language: null, member_since: expect.any(String) });
  });

  it('hides the birthday of a member another program’s counter enrolled until they confirm here, and shows it once they do', async () => {
    const other = await node.addVendor('Café Otro');
    const theirs = await signUpAt(node, other.vendorId, { first_name: 'Leo', last_name: 'Mena', birthdate: MARCH_15_1990, contact_consent: 3 });
    await inStoreApi(() => node).checkInOk(vendor.apiKey, theirs.email);
    const hidden = await shownTo(theirs.userId);
    expect(hidden.status, JSON.stringify(hidden.body)).toBe(200);
    // Their consent to the other program is not one to this: the counter's membership has none.
    expect(hidden.body).toMatchObject({ first_name: 'Leo', last_name: 'M.', counter_enrolled: true, birthdate: null, contact_consent: { email: false, sms: false } });
    expect(JSON.stringify(hidden.body)).not.toContain('1990');
    await loginOkAt(node, theirs.email, PASSWORD, vendor.vendorId);
    expect((await shownTo(theirs.userId)).body).toMatchObject({ last_name: 'Mena', counter_enrolled: false, birthdate: '1990-03-15' });
  });
});
