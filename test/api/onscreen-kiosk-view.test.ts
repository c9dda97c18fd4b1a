import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { KIOSK_READ_WINDOW_MS } from '../../src/core/onscreen/kiosk-view';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, ROOMY_RATE_LIMITS, setPhoneAt, signUpAt, withSessionKey } from '../support/customers';
import { expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// What a kiosk key is given of a customer, over real HTTP: a kiosk faces the public and its key sits
// in a customer-facing device, so the in-store replies it reads (retrieve customer, the queue) keep
// their shape but carry only what the kiosk screen shows — first name, the initial of the last name
// (to tell a guest), tier, balances and the program's rules — never contact details, birth date,
// the card that identified the customer, saved cards, auto-reload settings, visits, favourites or
// the overdraft flag. Cashier and integration keys still read everything.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

afterEach(async () => {
  await expectBalancesAddUp(node);
});

const inStore = inStoreApi(() => node);
const payments = paymentsApi(() => node);
const { checkInOk, retrieve, retrieveOk, queueOk, closeOk, orderOk, credit } = inStore;
const enc = encodeURIComponent;

let vendorCount = 0;
let phoneCount = 0;
/** A fresh US number of the 202 555 01xx test range: as typed, and as stored. */
const freshUsPhone = () => {
  const n = String(++phoneCount).padStart(2, '0');
  return { typed: `202 555 01${n}`, e164: `+120255501${n}` };
};

interface Person {
  v: VendorCredentials;
  c: Customer;
  phone: string;
  card: string;
  integrationKey: string;
}

/**
 * A customer with everything the counter can show: Ana López with a phone, birth date, a linked
 * card, a saved card paying auto reload, points, an earlier visit with an order (favourites) and
 * the overdraft flag; checked in now by her card at the kiosk.
 */
async function fullyKnownCustomer(): Promise<Person & { hash: string }> {
  const v = await node.addVendor(`Kiosk view ${++vendorCount}`);
  const c = await signUpAt(node, v.vendorId, { birthdate: 631_152_000, contact_consent: 1 });
  const phone = freshUsPhone();
  expect(await setPhoneAt(node, c, phone.typed, '1')).toBe(phone.e164);
  const card = `KV${Date.now().toString(36).toUpperCase()}${vendorCount}`;
  expect((await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number: card } })).status).toBe(201);
  expect((await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: { number: card } })).status).toBe(200);
  const profile = await payments.addProfileOk(c.key, CARDS.visa);
  await payments.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
  await credit(v, v.loyaltyCurrencyId, c.userId, 120);

  const earlier = await checkInOk(v.apiKey, c.email);
  await orderOk(v.apiKey, { pos_session_hash: earlier.pos_session.hash, receipt_number: `KV-${vendorCount}`, subtotal: 4, items: [{ name: 'Flat white', quantity: 1, price: 4, sku: 'FW' }] });
  // (the order closed that visit)
  node.clock.advance(60_000);
  await node.engine.db.updateTable('user_vendors').set({ flagged: 1 }).where('user_id', '=', c.userId).where('vendor_id', '=', v.vendorId).execute();

  const integration = await addApiKey(node.engine.db, node.engine, { vendorId: v.vendorId, storeId: v.storeId, posId: v.posId, role: 'integration', label: 'POS link' });
  // (at the kiosk: a kiosk key reads only whom a kiosk identified)
  const { pos_session: session } = await checkInOk(v.kioskApiKey, card);
  return { v, c, phone: phone.e164, card, integrationKey: integration.key, hash: session.hash };
}

/** Fails when any of the customer's personal values appears anywhere in a reply. */
function expectNoPersonalData(reply: unknown, p: Person): void {
  const text = JSON.stringify(reply);
  // (short digit runs such as a postal code or a card's last four could turn up in ids and hashes:
  // the saved card is checked field by field instead)
  for (const secret of [p.c.email, p.phone, p.phone.slice(2), p.card, 'López', 'Flat white', '631152000', 'user_billingprofile']) {
    expect(text, `the reply carries ${secret}`).not.toContain(secret);
  }
}

describe('GET /onscreen with a kiosk key', () => {
  it('keeps the shape but blanks what the kiosk does not show; the cashier and integration keys read everything', async () => {
    const p = await fullyKnownCustomer();
    const byCashier = await retrieveOk(p.v.apiKey, p.hash);
    // the counter's view is untouched: every personal field is there
    expect(byCashier.pos_session.card).toBe(p.card);
    expect(byCashier.user).toMatchObject({ first_name: 'Ana', last_name: 'López', email_address: p.c.email, phone_number: p.phone, birthdate: 631_152_000, flagged: true });
    expect(byCashier.reload).toMatchObject({ amount: 25, threshold: 10, billing_profile: { card: expect.stringContaining(CARDS.visa.slice(-4)), postal_code: '10001' } });
    expect(byCashier.last_visit).not.toBeNull();
    expect(byCashier.favourite_items).toEqual([{ object: 'item', name: 'Flat white', sku: 'FW', quantity: 1, orders: 1 }]);
    expect(await retrieveOk(p.integrationKey, p.hash)).toStrictEqual(byCashier);

    const byKiosk = await retrieveOk(p.v.kioskApiKey, p.hash);
    expect(byKiosk).toStrictEqual({
      ...byCashier,
      pos_session: { ...byCashier.pos_session, card: null },
      user: { ...byCashier.user, last_name: 'L.', email_address: '', phone_number: '', birthdate: null, flagged: false },
      favourite_items: [],
      reload: { amount: 0, threshold: 0, billing_profile: null },
      last_visit: null,
    });
    // what the kiosk screen shows is all there
    expect(byKiosk.user.first_name).toBe('Ana');
    expect(byKiosk.user.tier).toMatchObject({ name: 'Member' });
    expect(byKiosk.loyalty_balance.data[0].amount).toBe(124);
    expectNoPersonalData(byKiosk, p);
  });

  it("someone typing another person's phone at the kiosk learns their first name and balances, not how to reach them", async () => {
    const p = await fullyKnownCustomer();
    await closeOk(p.v.apiKey, p.hash);
    const typed = await checkInOk(p.v.kioskApiKey, p.phone.slice(2));
    expectNoPersonalData(typed, p);
    const seen = await retrieveOk(p.v.kioskApiKey, typed.pos_session.hash);
    expect(seen.user).toMatchObject({ first_name: 'Ana', last_name: 'L.', email_address: '', phone_number: '', birthdate: null });
    expectNoPersonalData(seen, p);

    // joining "with" that phone checks the same person in: the register reply and the view are as bare
    const joined = await http(`${node.url}/onscreen/register?api_key=${enc(p.v.kioskApiKey)}`, { method: 'POST', body: { phone_number: { number: p.phone.slice(2), code: '1' } } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body.pos_session.hash).toBe(typed.pos_session.hash);
    expectNoPersonalData(joined.body, p);
    expectNoPersonalData(await retrieveOk(p.v.kioskApiKey, joined.body.pos_session.hash), p);
  });

  it('a guest (empty last name) keeps an empty last name, so the kiosk still greets it without a name', async () => {
    const v = await node.addVendor(`Kiosk view ${++vendorCount}`);
    const phone = freshUsPhone();
    const joined = await http(`${node.url}/onscreen/register?api_key=${enc(v.kioskApiKey)}`, { method: 'POST', body: { phone_number: { number: phone.typed, code: '1' } } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    const seen = await retrieveOk(v.kioskApiKey, joined.body.pos_session.hash);
    expect(seen.user).toMatchObject({ first_name: 'Guest', last_name: '', phone_number: '' });
    expect((await retrieveOk(v.apiKey, joined.body.pos_session.hash)).user).toMatchObject({ first_name: 'Guest', last_name: '', phone_number: phone.e164 });
  });
});

describe('GET /onscreen/queue with a kiosk key', () => {
  it('lists the same sessions with the last name as an initial and no email; the cashier and integration keys read them in full', async () => {
    const p = await fullyKnownCustomer();
    const byCashier = await queueOk(p.v.apiKey);
    expect(byCashier).toHaveLength(1);
    expect(byCashier[0].pos_session.user).toStrictEqual({ user_id: String(p.c.userId), first_name: 'Ana', last_name: 'López', email_address: p.c.email });
    expect(await queueOk(p.integrationKey)).toStrictEqual(byCashier);

    const byKiosk = await queueOk(p.v.kioskApiKey);
    expect(byKiosk).toStrictEqual([{ pos_session: { ...byCashier[0].pos_session, user: { user_id: String(p.c.userId), first_name: 'Ana', last_name: 'L.', email_address: '' } } }]);
    expectNoPersonalData(byKiosk, p);
  });
});

describe('a kiosk check-in reply', () => {
  it('never carried the customer (session, vendor and key only): still so', async () => {
    const p = await fullyKnownCustomer();
    const reply = await checkInOk(p.v.kioskApiKey, p.c.email);
    expect(Object.keys(reply).sort()).toEqual(['api_key', 'pos_session', 'vendor']);
    expectNoPersonalData(reply, p);
  });
});

describe('a kiosk key reads only whom a kiosk greets', () => {
  const hashesIn = async (key: string) => (await queueOk(key)).map((e: { pos_session: { hash: string } }) => e.pos_session.hash);
  /** The kiosk key's answers for this session: in its queue? retrieve status? */
  const kioskSees = async (v: VendorCredentials, hash: string) => ({ queued: (await hashesIn(v.kioskApiKey)).includes(hash), retrieve: (await retrieve(v.kioskApiKey, hash)).status });
  const SEEN = { queued: true, retrieve: 200 };
  const UNSEEN = { queued: false, retrieve: 404 };

  it('a customer checked in at the counter, or from the app, is the counter\'s: not in the kiosk\'s queue, and their hash answers as unknown', async () => {
    const v = await node.addVendor(`Kiosk view ${++vendorCount}`);
    const atCounter = await signUpAt(node, v.vendorId);
    const fromApp = await signUpAt(node, v.vendorId);
    const counter = await checkInOk(v.apiKey, atCounter.email);
    const app = await http(`${node.url}${withSessionKey('/vendor/store/check-in', fromApp.key)}`, { method: 'POST', body: { store: v.storeId } });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    expect(await hashesIn(v.apiKey)).toEqual([counter.pos_session.hash, app.body.pos_session.hash]);
    expect(await hashesIn(v.kioskApiKey)).toEqual([]);
    for (const hash of [counter.pos_session.hash, app.body.pos_session.hash]) {
      const refused = await retrieve(v.kioskApiKey, hash);
      const unknown = await retrieve(v.kioskApiKey, '0'.repeat(32));
      expect(refused.status).toBe(404);
      expect(refused.body.error.errors).toStrictEqual(unknown.body.error.errors);
      // the counter still reads them in full
      expect((await retrieveOk(v.apiKey, hash)).user.email_address).not.toBe('');
    }
  });

  it('for a few minutes after a kiosk identified them; again when a kiosk identifies them again; not once the counter has', async () => {
    const v = await node.addVendor(`Kiosk view ${++vendorCount}`);
    const c = await signUpAt(node, v.vendorId);
    const { pos_session: session } = await checkInOk(v.kioskApiKey, c.email);
    expect(await kioskSees(v, session.hash)).toEqual(SEEN);
    node.clock.advance(KIOSK_READ_WINDOW_MS);
    expect(await kioskSees(v, session.hash)).toEqual(SEEN);
    node.clock.advance(1);
    expect(await kioskSees(v, session.hash)).toEqual(UNSEEN);
    // still waiting at the counter, which reads them as before
    expect(await hashesIn(v.apiKey)).toEqual([session.hash]);

    // scanned at the kiosk again: the same session, readable again
    expect((await checkInOk(v.kioskApiKey, c.email)).pos_session.hash).toBe(session.hash);
    expect(await kioskSees(v, session.hash)).toEqual(SEEN);
    // then identified at the counter: the kiosk's window closes at once
    expect((await checkInOk(v.apiKey, c.email)).pos_session.hash).toBe(session.hash);
    expect(await kioskSees(v, session.hash)).toEqual(UNSEEN);
  });

  it('whoever joins at the kiosk is greeted; whoever the counter registers is not', async () => {
    const v = await node.addVendor(`Kiosk view ${++vendorCount}`);
    const register = (key: string, phone: string) => http(`${node.url}/onscreen/register?api_key=${enc(key)}`, { method: 'POST', body: { phone_number: { number: phone, code: '1' } } });
    const atKiosk = await register(v.kioskApiKey, freshUsPhone().typed);
    const atCounter = await register(v.apiKey, freshUsPhone().typed);
    expect([atKiosk.status, atCounter.status]).toEqual([201, 201]);
    expect(await kioskSees(v, atKiosk.body.pos_session.hash)).toEqual(SEEN);
    expect(await kioskSees(v, atCounter.body.pos_session.hash)).toEqual(UNSEEN);
  });
});
