import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { type Customer, deleteAccountAt, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { startTestNode, type TestNode } from '../support/test-node';

// Account deletion and saved cards, over real HTTP: a customer who leaves a program can no longer
// be charged there (billing profiles deleted, auto reload off, queued auto reloads cancelled), and
// an erased person's saved cards keep nothing that identifies the cardholder or can be charged.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const api = paymentsApi(() => node);
const store = inStoreApi(() => node);
const newReceipt = receiptCounter('PF');

const profileRows = (userId: number) => node.engine.db.selectFrom('billing_profiles').selectAll().where('user_id', '=', userId).orderBy('id').execute();
const linkOf = (userId: number, vendorId: number) =>
  node.engine.db
    .selectFrom('user_vendors')
    .select(['reload_amount', 'reload_threshold', 'billing_profile_id', 'removed_at'])
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .orderBy('id')
    .executeTakeFirstOrThrow();

describe('account deletion and billing profiles', () => {
  it('deletes the saved cards at the program left, turns auto reload off and cancels the queued reload; erasure blanks every card', async () => {
    const a = await node.addVendor('Cards A');
    const b = await node.addVendor('Cards B');
    const c: Customer = await signUpAt(node, a.vendorId);
    const visa = await api.addProfileOk(c.key, CARDS.visa);
    const mastercard = await api.addProfileOk(c.key, CARDS.mastercard);
    // 20 of quick pay, auto reload of 25 at 10; a spend of 15 crosses the threshold and queues a reload.
    await api.reloadOk(c.key, { user_billingprofile: visa.id, amount: 20 });
    await api.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: mastercard.id });
    await store.orderOk(a.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 15, total: 15, quick_pay: 15 });
    const queued = await node.engine.db.selectFrom('auto_reloads').select(['id', 'status']).where('user_id', '=', c.userId).execute();
    expect(queued.map((r) => r.status)).toEqual(['queued']);

    // The same person also belongs to B, with a card there.
    const atB = await loginOkAt(node, c.email, PASSWORD, b.vendorId);
    const cB: Customer = { ...c, vendorId: b.vendorId, key: atB.session_identifier };
    const cardB = await api.addProfileOk(cB.key, CARDS.amex);
    const chargesBefore = await api.gatewayCharges(mastercard.id);

    // Leaving A: A's cards are deleted (but kept: a charge names the visa), auto reload is off.
    // (The 5 of quick pay left there is given up in so many words.)
    await deleteAccountAt(node, c, { forfeitBalances: true });
    const afterA = await profileRows(c.userId);
    const byId = new Map(afterA.map((p) => [p.id, p]));
    expect(byId.get(visa.id)!.deleted_at).not.toBeNull();
    expect(byId.get(mastercard.id)!.deleted_at).not.toBeNull();
    expect(byId.get(cardB.id)!.deleted_at).toBeNull();
    // Not erased (B still holds the account), but A's cards lose their holder and token (the
    // gateway forgets them too); they keep brand, last four and expiry for the charges naming them.
    for (const id of [visa.id, mastercard.id]) expect(byId.get(id)).toMatchObject({ name: '', postal_code: null, description: null, token: '', is_default: 0, last4: expect.stringMatching(/^\d{4}$/) });
    expect(byId.get(cardB.id)!.token).not.toBe('');
    expect(await node.engine.db.selectFrom('gateway_detachments').select('billing_profile_id').where('billing_profile_id', 'in', [visa.id, mastercard.id, cardB.id]).orderBy('billing_profile_id').execute()).toEqual(
      [visa.id, mastercard.id].sort((x, y) => x - y).map((id) => ({ billing_profile_id: id })),
    );
    expect(await linkOf(c.userId, a.vendorId)).toMatchObject({ reload_amount: 0, reload_threshold: 0, billing_profile_id: null });
    expect((await node.engine.db.selectFrom('auto_reloads').select('status').where('id', '=', queued[0]!.id).executeTakeFirstOrThrow()).status).toBe('cancelled');
    // The worker charges nothing afterwards.
    await drainAutoReloads(node.engine);
    expect(await api.gatewayCharges(mastercard.id)).toBe(chargesBefore);
    // B's card still works.
    expect((await api.listOk(cB.key)).data.map((p: any) => p.id)).toEqual([cardB.id]);

    // Leaving B too erases the person: every card keeps only brand, last four and expiry.
    await deleteAccountAt(node, cB, { expectDeleted: true });
    const erased = await profileRows(c.userId);
    expect(erased.map((p) => p.id).sort()).toEqual([visa.id, mastercard.id, cardB.id].sort());
    for (const p of erased) {
      expect(p).toMatchObject({ name: '', postal_code: null, description: null, token: '', is_default: 0 });
      expect(p.deleted_at).not.toBeNull();
      expect(p.last4).toMatch(/^\d{4}$/);
    }
    // The charge that names the visa still points at its row.
    const charges = await node.engine.db.selectFrom('payment_charges').select(['billing_profile_id', 'status']).where('user_id', '=', c.userId).execute();
    expect(charges).toContainEqual({ billing_profile_id: visa.id, status: 'succeeded' });
    await expectBalancesAddUp(node);
  });
});
