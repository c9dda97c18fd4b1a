import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { phoneOnlyGuestAt, ROOMY_RATE_LIMITS } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// One account serves every program it belongs to, and a contact on it opens all of them (a password
// reset goes to its email). Program A's counter and back office found B's phone-only guest by phone
// and gave it the email of whoever stood there: a reset to that email took the account and its
// balance at B. A program vouches for a new contact or passport only of a customer who is theirs
// alone, or a guest it registered that other programs only enrolled at a counter
// (customers/other-programs.ts); the customer adds their own in the app.

let node: TestNode;
let a: VendorCredentials;
let b: VendorCredentials;
let ownerA: SignedInStaff;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  a = await node.addVendor('Program A');
  b = await node.addVendor('Program B');
  ownerA = await ownerOf(node, a.vendorId);
});

afterAll(async () => {
  await node?.close();
});

const register = (apiKey: string, body: Record<string, unknown>) => http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(apiKey)}`, { method: 'POST', body });
const userRow = (id: number) => node.engine.db.selectFrom('users').select(['email', 'phone', 'passport_number']).where('id', '=', id).executeTakeFirstOrThrow();
const errorOf = (reply: { status: number; body: any }) => [reply.status, reply.body.error?.errors?.[0]?.reason ?? reply.body.code, reply.body.error?.errors?.[0]?.field ?? reply.body.field];

describe("another program's customer at this counter", () => {
  it("A's counter cannot add an email or phone to B's customer, and changes nothing", async () => {
    const guest = await phoneOnlyGuestAt(node, b.apiKey, { number: '4155550666', code: '1', e164: '+14155550666' });
    const refused = await register(a.apiKey, { phone_number: { number: '4155550666', code: '1' }, email: 'attacker@evil.example' });
    expect(errorOf(refused)).toEqual([403, 'forbidden', 'email']);
    expect(JSON.stringify(refused.body)).toContain("account is another program's too");
    expect(await userRow(guest)).toEqual({ email: null, phone: '+14155550666', passport_number: null });
    // Checking them in by the phone alone still works (a counter-enrolled member of A).
    expect((await register(a.apiKey, { phone_number: { number: '4155550666', code: '1' } })).status).toBe(201);
    // Once a member of A too, still not: they belong to B as well.
    expect(errorOf(await register(a.apiKey, { phone_number: { number: '4155550666', code: '1' }, email: 'attacker@evil.example' }))).toEqual([403, 'forbidden', 'email']);
    expect((await userRow(guest)).email).toBeNull();

    const byEmail = await register(b.apiKey, { email: 'only.email@example.com' });
    expect(byEmail.status).toBe(201);
    const phoneAdded = await register(a.apiKey, { email: 'only.email@example.com', phone_number: { number: '4155550777', code: '1' } });
    expect(errorOf(phoneAdded)).toEqual([403, 'forbidden', 'phone_number']);
    const emailGuest = await node.engine.db.selectFrom('users').select('id').where('email_key', '=', 'only.email@example.com').executeTakeFirstOrThrow();
    expect((await userRow(Number(emailGuest.id))).phone).toBeNull();
  });

  it("A's counter cannot change the passport number of B's customer", async () => {
    const guest = await phoneOnlyGuestAt(node, b.apiKey, { number: '4155550888', code: '1', e164: '+14155550888' });
    const refused = await register(a.apiKey, { phone_number: { number: '4155550888', code: '1' }, passport_number: 'X1234567' });
    expect(errorOf(refused)).toEqual([403, 'forbidden', 'passport_number']);
    expect((await userRow(guest)).passport_number).toBeNull();
  });

  it("A's back office cannot give B's customer an email", async () => {
    const guest = await phoneOnlyGuestAt(node, b.apiKey, { number: '4155550999', code: '1', e164: '+14155550999' });
    expect((await register(a.apiKey, { phone_number: { number: '4155550999', code: '1' } })).status).toBe(201);
    const refused = await staffCall(node, ownerA.token, 'PUT', `/backoffice/customers/${guest}/email`, { email: 'attacker@evil.example' });
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([403, 'forbidden', 'email']);
    expect((await userRow(guest)).email).toBeNull();
  });

  it("the program that registered a guest another program's counter then enrolled still gives it an email; the other program does not", async () => {
    // A's phone-only guest, found by phone at B's counter (counter-enrolled at B): with no email and
    // no password the guest cannot add one in the app, so A (whose guest it is) may; B may not.
    const guest = await phoneOnlyGuestAt(node, a.apiKey, { number: '4155550444', code: '1', e164: '+14155550444' });
    expect((await register(b.apiKey, { phone_number: { number: '4155550444', code: '1' } })).status).toBe(201);
    const ownerB = await ownerOf(node, b.vendorId);
    const byB = await staffCall(node, ownerB.token, 'PUT', `/backoffice/customers/${guest}/email`, { email: 'via.b@example.com' });
    expect([byB.status, byB.body.code]).toEqual([403, 'forbidden']);
    expect(errorOf(await register(b.apiKey, { phone_number: { number: '4155550444', code: '1' }, email: 'via.b@example.com' }))).toEqual([403, 'forbidden', 'email']);
    const byA = await staffCall(node, ownerA.token, 'PUT', `/backoffice/customers/${guest}/email`, { email: 'gus.guest@example.com' });
    expect([byA.status, byA.body]).toEqual([200, { email: 'gus.guest@example.com' }]);
    expect((await userRow(guest)).email).toBe('gus.guest@example.com');
  });

  it('once the other program holds something of theirs (a sale, points), the program that registered the guest no longer gives it an email', async () => {
    const guest = await phoneOnlyGuestAt(node, a.apiKey, { number: '4155550333', code: '1', e164: '+14155550333' });
    expect((await register(b.apiKey, { phone_number: { number: '4155550333', code: '1' } })).status).toBe(201);
    const sold = await http(`${node.url}/order?api_key=${encodeURIComponent(b.apiKey)}`, { method: 'POST', body: { card_number: '4155550333', receipt_number: 'B-500', subtotal: 500 } });
    expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    const byA = await staffCall(node, ownerA.token, 'PUT', `/backoffice/customers/${guest}/email`, { email: 'attacker@evil.example' });
    expect([byA.status, byA.body.code]).toEqual([403, 'forbidden']);
    expect((await userRow(guest)).email).toBeNull();
  });

  it("a program's own customer still gets the contacts and passport its counter adds", async () => {
    const guest = await phoneOnlyGuestAt(node, a.apiKey, { number: '4155550555', code: '1', e164: '+14155550555' });
    const added = await register(a.apiKey, { phone_number: { number: '4155550555', code: '1' }, email: 'own.guest@example.com', passport_number: 'Y7654321' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(await userRow(guest)).toEqual({ email: 'own.guest@example.com', phone: '+14155550555', passport_number: 'Y7654321' });
  });
});
