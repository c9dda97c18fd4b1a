import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { WEBHOOK_KINDS } from '../../src/core/webhooks/kinds';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { type Customer, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, setPhoneAt, signUpAt } from '../support/customers';
import { expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// What program A's back office and webhooks show of a customer of program B whom A's counter
// enrolled (docs/decisions.md, "A customer of another program at this counter"), over real HTTP:
// until the customer confirms the membership by their own act in A, A's staff and A's endpoints see
// what A's counter sees — the first name and the initial of the last name, never the email, phone,
// birth date or cédula. Staff who type the full email, phone or cédula still find them; a longer
// start of the last name does not. Once the customer logs in with A, A sees them in full.

let node: TestNode;
let receiver: WebhookReceiver;
let a: VendorCredentials;
let b: VendorCredentials;
let ownerA: SignedInStaff;
let managerA: SignedInStaff;
let storeManagerA: SignedInStaff;
let ownerB: SignedInStaff;

const inStore = inStoreApi(() => node);
const CEDULA = '1710034065';

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, webhooksAllowPrivate: true });
  receiver = await startWebhookReceiver();
  a = await node.addVendor('Café A');
  b = await node.addVendor('Café B');
  const endpoint = await http(`${node.url}/webhooks`, { method: 'POST', token: a.accessToken, body: { url: receiver.url, events: [...WEBHOOK_KINDS] } });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  receiver.secrets = [endpoint.body.secret];
  ownerA = await ownerOf(node, a.vendorId);
  managerA = await invitedStaff(node, ownerA, 'manager');
  storeManagerA = await invitedStaff(node, ownerA, 'store_manager', a.storeId);
  ownerB = await ownerOf(node, b.vendorId);
});

afterAll(async () => {
  await receiver?.close();
  await node?.close();
});

/** Delivers everything due and returns the user objects A's endpoint received since the last call, by event type. */
let seen = 0;
async function usersSentToA(): Promise<Array<{ type: string; user: Record<string, unknown> }>> {
  while ((await deliverDueWebhooks(node.engine, { allowPrivate: true })).succeeded > 0);
  const fresh: ReceivedWebhook[] = receiver.received.slice(seen);
  seen = receiver.received.length;
  for (const hit of fresh) {
    expect(hit.verified, hit.raw).toBe(true);
    expect(hit.body.vendor).toBe(a.vendorId);
  }
  return fresh.filter((hit) => hit.body.data.user).map((hit) => ({ type: hit.body.type as string, user: hit.body.data.user }));
}

const search = (who: SignedInStaff, q: string) => staffCall(node, who.token, 'GET', `/backoffice/customers?q=${encodeURIComponent(q)}`);
const profile = (who: SignedInStaff, id: number) => staffCall(node, who.token, 'GET', `/backoffice/customers/${id}`);

interface Known {
  c: Customer;
  phone: string;
}

let phones = 0;
/** Valentina Zúñiga, B's customer with an email, a phone, a birth date and a cédula. */
async function customerOfB(first = 'Valentina'): Promise<Known> {
  const c = await signUpAt(node, b.vendorId, { first_name: first, last_name: 'Zúñiga', birthdate: 631_152_000 });
  const phone = await setPhoneAt(node, c, `202 555 01${String(++phones + 40).padStart(2, '0')}`, '1');
  await node.engine.db.updateTable('users').set({ cedula: phones === 1 ? CEDULA : null }).where('id', '=', c.userId).execute();
  return { c, phone };
}

/** Nothing of what A may not see, anywhere in a reply or payload. */
function expectNothingPrivate(value: unknown, { c, phone }: Known): void {
  const text = JSON.stringify(value);
  for (const secret of [c.email, phone, phone.slice(2), 'Zúñiga', 'Zuniga', CEDULA, '631152000']) expect(text, text).not.toContain(secret);
}

const reduced = (c: Customer, first = 'Valentina') => ({ user_id: c.userId, first_name: first, last_name: 'Z.', email_address: null, birthdate: null, status: 'active' });
const full = (c: Customer, first = 'Valentina') => ({ user_id: c.userId, first_name: first, last_name: 'Zúñiga', email_address: c.email, birthdate: 631_152_000, status: 'active' });

describe("a customer of program B whom A's counter enrolled", () => {
  it("checked in by phone at A's kiosk: A's back office search, profile and webhooks show the first name and the initial until they log in with A", async () => {
    const known = await customerOfB();
    const { c, phone } = known;
    await usersSentToA();

    const { pos_session: session } = await inStore.checkInOk(a.kioskApiKey, phone);
    const link = await node.engine.db.selectFrom('user_vendors').select('counter_enrolled').where('user_id', '=', c.userId).where('vendor_id', '=', a.vendorId).executeTakeFirstOrThrow();
    expect(link.counter_enrolled).toBe(1);

    // A's webhooks: the membership and the visit, by name only.
    const sent = await usersSentToA();
    expect(sent.map((s) => s.type)).toEqual(expect.arrayContaining(['customer.registered', 'check_in.opened']));
    for (const s of sent) expect(s.user, s.type).toEqual(reduced(c));
    expectNothingPrivate(sent, known);

    // A's search: the full email, phone or cédula finds her, and shows no more than the counter.
    const hit = { id: c.userId, first_name: 'Valentina', last_name: 'Z.', email: null, phone: null };
    for (const [q, by] of [[phone, 'phone'], [c.email.toUpperCase(), 'email'], [CEDULA, 'cedula']] as const) {
      const found = await search(managerA, q);
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body.items, q).toEqual([{ ...hit, matched_by: by }]);
      expectNothingPrivate(found.body, known);
    }
    // By name: her first name, or the initial she shows; not a longer start of her last name.
    for (const q of ['valentina', 'z', 'Valentina Z', 'z valentina']) {
      const found = await search(ownerA, q);
      expect(found.body.items.filter((h: { id: number }) => h.id === c.userId), q).toEqual([{ ...hit, matched_by: 'name' }]);
      expectNothingPrivate(found.body, known);
    }
    for (const q of ['zu', 'zúñiga', 'Valentina Zúñ', 'zuniga valentina']) {
      const found = await search(ownerA, q);
      expect(found.status).toBe(200);
      expect(found.body.items.map((h: { id: number }) => h.id), q).not.toContain(c.userId);
    }

    // A's profile, for every role that reads it (the store manager: she visited their store).
    for (const who of [ownerA, managerA, storeManagerA]) {
      const shown = await profile(who, c.userId);
      expect(shown.status, JSON.stringify(shown.body)).toBe(200);
      expect(shown.body).toMatchObject({ id: c.userId, first_name: 'Valentina', last_name: 'Z.', email: null, phone: null, cedula: null, status: 'active', counter_enrolled: true });
      expectNothingPrivate(shown.body, known);
    }
    // B, her own program, sees her in full.
    expect((await profile(ownerB, c.userId)).body).toMatchObject({ last_name: 'Zúñiga', email: c.email, phone, cedula: CEDULA, counter_enrolled: false });

    // The visit's end, still before she confirms: by name only.
    await inStore.closeOk(a.apiKey, session.hash);
    const closed = await usersSentToA();
    expect(closed.map((s) => s.type)).toContain('check_in.closed');
    for (const s of closed) expect(s.user, s.type).toEqual(reduced(c));

    // She chooses A (logs in with it): from then on A sees her in full.
    await loginOkAt(node, c.email, PASSWORD, a.vendorId);
    expect((await search(managerA, phone)).body.items).toEqual([{ id: c.userId, first_name: 'Valentina', last_name: 'Zúñiga', email: c.email, phone, matched_by: 'phone' }]);
    expect((await search(ownerA, 'zúñ')).body.items.map((h: { id: number }) => h.id)).toContain(c.userId);
    expect((await profile(ownerA, c.userId)).body).toMatchObject({ last_name: 'Zúñiga', email: c.email, phone, cedula: CEDULA, counter_enrolled: false });
    await usersSentToA();
    await inStore.checkInOk(a.apiKey, phone);
    const confirmed = await usersSentToA();
    expect(confirmed.map((s) => s.type)).toContain('check_in.opened');
    for (const s of confirmed) expect(s.user, s.type).toEqual(full(c));
    await expectBalancesAddUp(node);
  });

  it("checked in by email at A's counter and served: the order's webhooks are by name only too", async () => {
    const known = await customerOfB('Camila');
    const { c } = known;
    await usersSentToA();
    const { pos_session: session } = await inStore.checkInOk(a.apiKey, c.email);
    await inStore.orderOk(a.apiKey, { pos_session_hash: session.hash, receipt_number: `CE-${c.userId}`, subtotal: 5, items: [{ name: 'Latte', quantity: 1, price: 5, sku: 'LT' }] });
    const sent = await usersSentToA();
    expect(sent.map((s) => s.type)).toEqual(expect.arrayContaining(['customer.registered', 'check_in.opened', 'order.placed']));
    for (const s of sent) expect(s.user, s.type).toEqual(reduced(c, 'Camila'));
    expectNothingPrivate(sent, known);
    const shown = await profile(ownerA, c.userId);
    expect(shown.body).toMatchObject({ first_name: 'Camila', last_name: 'Z.', email: null, phone: null, counter_enrolled: true });
    expectNothingPrivate(shown.body, known);
    await expectBalancesAddUp(node);
  });
});
