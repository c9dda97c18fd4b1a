import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { signUpAt } from '../support/customers';
import { startTestNode, type TestNode } from '../support/test-node';

// A reason too short (an adjustment, a block, a removal) is refused in the shape of the node's other
// validation sentences, "<field> must be …", so the back office says it with the form's own label in
// the screen's language: "Give a reason of 3 to 500 characters." reached a Spanish screen in English.
describe('a staff reason of the wrong length', () => {
  let node: TestNode;
  let manager: SignedInStaff;
  let customerId: number;
  let currency: string;

  beforeAll(async () => {
    node = await startTestNode();
    const vendor = await node.addVendor('Café Andino');
    manager = await invitedStaff(node, await ownerOf(node, vendor.vendorId), 'manager');
    customerId = (await signUpAt(node, vendor.vendorId)).userId;
    const profile = await staffCall(node, manager.token, 'GET', `/backoffice/customers/${customerId}`);
    currency = profile.body.balances[0].currency;
  });

  afterAll(async () => {
    await node?.close();
  });

  const refusedForReason = (reply: { status: number; body: Record<string, unknown> }) =>
    expect([reply.status, reply.body.code, reply.body.field, reply.body.message]).toEqual([400, 'validation_failed', 'reason', 'reason must be 3 to 500 characters.']);

  it('is refused with the field first, and changes nothing', async () => {
    refusedForReason(await staffCall(node, manager.token, 'POST', `/backoffice/customers/${customerId}/adjustments`, { currency, amount: 5, reason: 'no' }));
    refusedForReason(await staffCall(node, manager.token, 'POST', `/backoffice/customers/${customerId}/block`, { reason: 'x'.repeat(501) }));
    refusedForReason(await staffCall(node, manager.token, 'POST', `/backoffice/customers/${customerId}/remove`, { reason: 'ok' }));
    const profile = await staffCall(node, manager.token, 'GET', `/backoffice/customers/${customerId}`);
    expect(profile.status).toBe(200);
    expect(profile.body.blocked).toBe(false);
    expect(profile.body.ledger).toEqual([]);
  });
});
