import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { loginAt, loginOkAt, PASSWORD, phoneOnlyGuestAt, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { startTestNode, type TestNode } from '../support/test-node';

// Staff remove a member at their request (POST /backoffice/customers/:id/remove), over real HTTP:
// a balance must be forfeited in so many words, the person is erased when no other program holds
// them, only their membership goes when one does, and whoever may not do it changes nothing.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let manager: SignedInStaff;
let storeManager: SignedInStaff;
let otherOwner: SignedInStaff;
const store = inStoreApi(() => node);
let receipts = 0;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Café Andino');
  owner = await ownerOf(node, vendor.vendorId);
  manager = await invitedStaff(node, owner, 'manager');
  storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
  otherOwner = await ownerOf(node, (await node.addVendor()).vendorId);
});

afterAll(async () => {
  await node?.close();
});

const remove = (who: SignedInStaff, id: number, body: unknown) => staffCall(node, who.token, 'POST', `/backoffice/customers/${id}/remove`, body);
const membership = (id: number, vendorId = vendor.vendorId) =>
  node.engine.db.selectFrom('user_vendors').select(['removed_at']).where('user_id', '=', id).where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
const person = (id: number) => node.engine.db.selectFrom('users').select(['first_name', 'email', 'status']).where('id', '=', id).executeTakeFirstOrThrow();

/** A member of the program who earned points at the counter. */
async function memberWithPoints(firstName: string) {
  const customer = await signUpAt(node, vendor.vendorId, { first_name: firstName, last_name: 'Quispe' });
  const order = await store.postOrder(vendor.apiKey, { card_number: customer.email, receipt_number: `RM-${++receipts}`, subtotal: 20 });
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  return customer;
}

describe('removing a member at their request', () => {
  it('refuses while they hold a balance unless it is forfeited; then erases them, audited, and they cannot log in', async () => {
    const rosa = await memberWithPoints('Rosa');
    const refused = await remove(manager, rosa.userId, { reason: 'Asked by phone, 3 Dec' });
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([409, 'balance_remaining', 'forfeit_balances']);
    expect((await membership(rosa.userId)).removed_at).toBeNull();
    expect((await person(rosa.userId)).first_name).toBe('Rosa');

    const removed = await remove(manager, rosa.userId, { reason: 'Asked by phone, 3 Dec', forfeit_balances: true });
    expect([removed.status, removed.body]).toEqual([200, { removed: true, erased: true }]);
    expect((await membership(rosa.userId)).removed_at).not.toBeNull();
    expect(await person(rosa.userId)).toMatchObject({ first_name: '', email: null, status: 'deleted' });
    expect((await loginAt(node, rosa.email, PASSWORD, vendor.vendorId)).status).not.toBe(200);
    expect((await staffCall(node, owner.token, 'GET', `/backoffice/customers/${rosa.userId}`)).status).toBe(404);
    expect((await store.checkIn(vendor.apiKey, rosa.email)).status).toBe(404);

    const [audit] = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=customer&limit=1')).body.items;
    expect(audit).toMatchObject({ action: 'customer.remove', actor: manager.email, object_id: String(rosa.userId), after: { member: false, erased: true, reason: 'Asked by phone, 3 Dec' } });
    expect(audit.before.balances).toEqual([{ currency: expect.any(String), amount: expect.any(Number) }]);
    expect(audit.before.balances[0].amount).toBeGreaterThan(0);
    // Nothing in the audit record names the person.
    expect(JSON.stringify(audit)).not.toContain(rosa.email);

    const again = await remove(manager, rosa.userId, { reason: 'Asked by phone, 3 Dec', forfeit_balances: true });
    expect([again.status, again.body.code]).toEqual([404, 'customer_not_found']);
  });

  it('takes a member of two programs out of this one only: the other keeps them, and they log in there', async () => {
    const leo = await memberWithPoints('Leo');
    const other = await node.addVendor('Panadería Sur');
    await loginOkAt(node, leo.email, PASSWORD, other.vendorId);
    const removed = await remove(owner, leo.userId, { reason: 'Letter of 2 Dec', forfeit_balances: true });
    expect([removed.status, removed.body]).toEqual([200, { removed: true, erased: false }]);
    expect((await membership(leo.userId)).removed_at).not.toBeNull();
    expect((await membership(leo.userId, other.vendorId)).removed_at).toBeNull();
    expect(await person(leo.userId)).toMatchObject({ first_name: 'Leo', email: leo.email, status: 'active' });
    expect((await loginAt(node, leo.email, PASSWORD, other.vendorId)).status).toBe(200);
  });

  it('takes the email staff gave them out of the audit log too', async () => {
    const guest = await phoneOnlyGuestAt(node, vendor.apiKey, { number: '4155550717', code: '1', e164: '+14155550717' }, { first_name: 'Tito' });
    expect((await staffCall(node, manager.token, 'PUT', `/backoffice/customers/${guest}/email`, { email: 'tito@example.test' })).status).toBe(200);
    expect((await remove(manager, guest, { reason: 'Asked at the counter' })).body).toEqual({ removed: true, erased: true });
    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=customer&limit=5')).body.items.filter((e: { object_id: string }) => e.object_id === String(guest));
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['customer.remove', 'customer.email_added']);
    expect(JSON.stringify(audit)).not.toContain('tito@');
  });

  it('is for owners and managers of the program, with a reason; anyone else changes nothing', async () => {
    const ines = await signUpAt(node, vendor.vendorId, { first_name: 'Inés' });
    const byStoreManager = await remove(storeManager, ines.userId, { reason: 'Asked by phone' });
    expect(byStoreManager.status).toBe(403);
    const byOtherProgram = await remove(otherOwner, ines.userId, { reason: 'Asked by phone' });
    expect([byOtherProgram.status, byOtherProgram.body.code]).toEqual([404, 'customer_not_found']);
    for (const reason of ['', '  x ']) {
      const noReason = await remove(owner, ines.userId, { reason });
      expect([noReason.status, noReason.body.code, noReason.body.field]).toEqual([400, 'validation_failed', 'reason']);
    }
    const noBody = await remove(owner, ines.userId, {});
    expect([noBody.status, noBody.body.code]).toEqual([400, 'validation_failed']);
    expect((await membership(ines.userId)).removed_at).toBeNull();
    // Nothing held: no forfeit needed.
    expect((await remove(owner, ines.userId, { reason: 'Asked at the counter' })).body).toEqual({ removed: true, erased: true });
  });

  it('is left to central at a paired store: 409 removal_managed_by_central, nothing changed', async () => {
    const paz = await signUpAt(node, vendor.vendorId, { first_name: 'Paz' });
    node.engine.programRole = 'replica';
    try {
      const refused = await remove(owner, paz.userId, { reason: 'Asked by phone' });
      expect([refused.status, refused.body.code]).toEqual([409, 'removal_managed_by_central']);
    } finally {
      node.engine.programRole = 'owner';
    }
    expect((await membership(paz.userId)).removed_at).toBeNull();
  });
});
