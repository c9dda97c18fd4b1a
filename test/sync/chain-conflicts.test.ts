import { afterEach, describe, expect, it } from 'vitest';
import { customerProfile } from '../../src/core/customer-care/customer-profile';
import { customerHistory } from '../../src/core/history/customer-history';
import { transact } from '../../src/core/engine';
import { holderBalance, openAccount, postEntry } from '../../src/core/ledger/ledger';
import { checkIn } from '../../src/core/onscreen/check-in';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { authenticateNode, issuePairingCode, pairNode, revokeSyncNode } from '../../src/core/sync/central/pairing';
import { setOfflinePolicy } from '../../src/core/sync/central/offline-policy';
import { loadFirstSyncState } from '../../src/core/sync/store/sync-client';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// The conflict rules of docs/sync.md, each provoked on purpose: two stores that cannot reach
// central do things central must reconcile when they come back.

interface Chain {
  clock: ManualClock;
  central: CentralHandle;
  a: StoreHandle & { link: Switch };
  b: StoreHandle & { link: Switch };
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function chain(options: { sameStore?: boolean } = {}): Promise<Chain> {
  const clock = new ManualClock();
  const central = await startCentral(clock);
  open.push(central);
  const storeA = { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey };
  const storeB = options.sameStore ? storeA : await addStore(central, 'B');
  const pair = async (store: typeof storeA) => {
    const handle = await pairStoreBehindSwitch(central, clock, store);
    open.push(handle);
    return handle;
  };
  return { clock, central, a: await pair(storeA), b: await pair(storeB) };
}

async function offline(...stores: Array<StoreHandle & { link: Switch }>): Promise<void> {
  for (const store of stores) {
    store.link.down = true;
    await store.client.syncOnce().catch(() => undefined);
  }
}

async function heal(c: Chain): Promise<void> {
  c.a.link.down = false;
  c.b.link.down = false;
  for (let round = 0; round < 2; round += 1) for (const store of [c.a, c.b]) await store.client.syncOnce();
}

describe('conflicts between stores that sold offline', () => {
  it('one email registered at two stores offline becomes one customer, with both stores’ points', async () => {
    const c = await chain();
    await offline(c.a, c.b);
    const atA = await registerInStore(c.a.engine, await c.a.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'ana@example.com', receiptNumber: 'A-1', subtotal: 10 });
    const atB = await registerInStore(c.b.engine, await c.b.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await placeOrder(c.b.engine, await c.b.scope(), { identification: 'ana@example.com', receiptNumber: 'B-1', subtotal: 7 });
    expect(atA.session.user_id).not.toBe(atB.session.user_id);
    await heal(c);
    const merged = await c.central.engine.db.selectFrom('users').select(['id', 'merged_into']).where('merged_into', 'is not', null).execute();
    expect(merged).toHaveLength(1);
    const survivor = Number(merged[0]!.merged_into);
    const points = { holderType: 'user' as const, holderId: survivor, currencyId: c.central.vendor.loyaltyCurrencyId };
    for (const node of [c.central, c.a, c.b]) expect(await holderBalance(node.engine.db, points)).toBe(17);
    // The old id still resolves to the survivor, everywhere.
    for (const node of [c.central, c.a, c.b]) {
      const pointer = await node.engine.db.selectFrom('users').select('merged_into').where('id', '=', Number(merged[0]!.id)).executeTakeFirstOrThrow();
      expect(Number(pointer.merged_into)).toBe(survivor);
      // A till that kept the old id reads the survivor's history (both sales), and so does the back office.
      const vendorId = c.central.vendor.vendorId;
      const history = await customerHistory(node.engine, { vendorId, userId: Number(merged[0]!.id) }, {});
      expect(history.items.map((r) => r.total).sort((x, y) => x - y)).toEqual([7, 10]);
      expect((await customerProfile(node.engine, vendorId, null, Number(merged[0]!.id))).id).toBe(survivor);
    }
    const exceptions = await c.central.engine.db.selectFrom('sync_exceptions').select('kind').execute();
    expect(exceptions.map((e) => e.kind)).toContain('customer_merged');
  });

  it('the survivor of a merge takes the contact the later registration brought (not from a kiosk)', async () => {
    const c = await chain();
    const phone = { number: '4155550199', code: '1' };
    await offline(c.a, c.b);
    // Zed: email only at A, email and phone at B. Pat: phone only at A, phone and email at B.
    const zedAtA = await registerInStore(c.a.engine, await c.a.scope(), { email: 'zed@example.com' });
    await registerInStore(c.b.engine, await c.b.scope(), { email: 'zed@example.com', phone });
    const patAtA = await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '4155550142', code: '1' } });
    await registerInStore(c.b.engine, await c.b.scope(), { phone: { number: '4155550142', code: '1' }, email: 'pat@example.com' });
    // Kim at a kiosk of B: a stranger's phone typed beside another email never reaches Kim's account.
    const kimAtA = await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '4155550177', code: '1' } });
    await registerInStore(c.b.engine, { ...(await c.b.scope()), role: 'kiosk' }, { phone: { number: '4155550177', code: '1' }, email: 'mallory@example.com' });
    await heal(c);
    const contacts = (db: typeof c.central.engine.db, id: number) => db.selectFrom('users').select(['email', 'phone', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    for (const node of [c.central, c.a, c.b]) {
      expect(await contacts(node.engine.db, zedAtA.session.user_id)).toEqual({ email: 'zed@example.com', phone: '+14155550199', status: 'active' });
      expect(await contacts(node.engine.db, patAtA.session.user_id)).toEqual({ email: 'pat@example.com', phone: '+14155550142', status: 'active' });
      expect(await contacts(node.engine.db, kimAtA.session.user_id)).toEqual({ email: null, phone: '+14155550177', status: 'active' });
    }
    // B's counter finds Zed by the phone it took, and Pat by the email: no second registration.
    expect((await checkIn(c.b.engine, await c.b.scope(), { identification: '+14155550199' })).session.user_id).toBe(zedAtA.session.user_id);
    expect((await checkIn(c.a.engine, await c.a.scope(), { identification: 'pat@example.com' })).session.user_id).toBe(patAtA.session.user_id);
  });

  it('a node central revoked takes no more check-ins or sales, also after a restart; another node sells on', async () => {
    const c = await chain();
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'rev@example.com' });
    await heal(c);
    await revokeSyncNode(c.central.engine, c.central.vendor.vendorId, c.a.engine.nodeId);
    // The revocation is learnt at the next round; a sale made before it waits, never to be sent.
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'rev@example.com', receiptNumber: 'A-1', subtotal: 5 });
    await expect(c.a.client.syncOnce()).rejects.toMatchObject({ code: 'node_revoked' });
    const refused = (work: Promise<unknown>) => expect(work).rejects.toMatchObject({ code: 'store_unpaired_at_central', status: 409 });
    await refused(placeOrder(c.a.engine, await c.a.scope(), { identification: 'rev@example.com', receiptNumber: 'A-2', subtotal: 5 }));
    await refused(checkIn(c.a.engine, await c.a.scope(), { identification: 'rev@example.com' }));
    await refused(registerInStore(c.a.engine, await c.a.scope(), { email: 'new@example.com' }));
    // Started again on its database, it still knows.
    c.a.engine.centralLink.unpaired = false;
    await loadFirstSyncState(c.a.engine);
    await refused(placeOrder(c.a.engine, await c.a.scope(), { identification: 'rev@example.com', receiptNumber: 'A-3', subtotal: 5 }));
    // B, not revoked, sells on.
    expect((await placeOrder(c.b.engine, await c.b.scope(), { identification: 'rev@example.com', receiptNumber: 'B-1', subtotal: 5 })).status).toBe('Complete');
  });

  it('a receipt number reused by two nodes of one store keeps both sales, the later one renamed', async () => {
    const c = await chain({ sameStore: true });
    await registerInStore(c.central.engine, { ...(await c.a.scope()) }, { email: 'bo@example.com' });
    await heal(c);
    await offline(c.a, c.b);
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'bo@example.com', receiptNumber: 'R-9', subtotal: 5 });
    await placeOrder(c.b.engine, await c.b.scope(), { identification: 'bo@example.com', receiptNumber: 'R-9', subtotal: 6 });
    await heal(c);
    const receipts = (await c.central.engine.db.selectFrom('orders').select('receipt_number').execute()).map((o) => o.receipt_number).sort();
    expect(receipts).toEqual(['R-9', `R-9~${c.b.engine.nodeId}`]);
    const rejected = await c.central.engine.db.selectFrom('sync_verdicts').select('verdict').where('verdict', '=', 'rejected').execute();
    expect(rejected).toEqual([]);
  });

  it('offline spends beyond the balance are accepted, flagged, and unflagged when credits settle them', async () => {
    const c = await chain();
    const currency = await c.central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', c.central.vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
    const reward = await createSpendingRule(c.central.engine, { vendorId: c.central.vendor.vendorId }, { name: 'Tea', cost: 8, currency: currency.public_id });
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'cy@example.com' });
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-1', subtotal: 10 });
    await heal(c);
    await offline(c.a, c.b);
    // Both stores believe 10 points are there; each spends 8.
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-2', subtotal: 0, redemptions: [reward.publicId] });
    await placeOrder(c.b.engine, await c.b.scope(), { identification: 'cy@example.com', receiptNumber: 'B-2', subtotal: 0, redemptions: [reward.publicId] });
    await heal(c);
    const user = await c.central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'cy@example.com').executeTakeFirstOrThrow();
    const membership = () => c.central.engine.db.selectFrom('user_vendors').select(['flagged', 'flagged_reason']).where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(await membership()).toEqual({ flagged: 1, flagged_reason: 'offline_overdraft' });
    expect(await holderBalance(c.b.engine.db, { holderType: 'user', holderId: Number(user.id), currencyId: c.central.vendor.loyaltyCurrencyId })).toBe(-6);
    const open = () => c.central.engine.db.selectFrom('sync_exceptions').select(['resolved_at', 'message']).where('kind', '=', 'offline_overdraft').executeTakeFirstOrThrow();
    expect((await open()).resolved_at).toBeNull();
    // Each spend carried what its store believed was there; staff see it in the exception.
    expect((await open()).message).toBe('Points spent before the nodes heard of each other left a balance of -6 Points (the store believed 10 Points was available); settled from the next credits');
    // The next purchase earns 6: the debt is settled and the flag lifts.
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-3', subtotal: 6 });
    await heal(c);
    expect(await membership()).toEqual({ flagged: 0, flagged_reason: null });
    expect((await open()).resolved_at).not.toBeNull();
  });

  it('an overdraft in quick pay stays flagged while points are earned; a quick-pay credit at central settles it', async () => {
    const c = await chain();
    const { vendorId, quickPayCurrencyId, loyaltyCurrencyId } = c.central.vendor;
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'di@example.com' });
    await heal(c);
    const user = await c.central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'di@example.com').executeTakeFirstOrThrow();
    const userId = Number(user.id);
    const creditAtCentral = (cents: number) =>
      transact(c.central.engine, async (trx) => {
        const account = await openAccount(trx, c.central.engine, { vendorId, currencyId: quickPayCurrencyId, holderType: 'user', holderId: userId });
        await postEntry(trx, c.central.engine, account, { amount: cents, kind: 'adjustment' });
      });
    await creditAtCentral(1_000);
    await heal(c);
    await offline(c.a, c.b);
    // Both stores believe 10.00 is there; each spends 8.00.
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'di@example.com', receiptNumber: 'QA-1', subtotal: 8, quickPay: 8 });
    await placeOrder(c.b.engine, await c.b.scope(), { identification: 'di@example.com', receiptNumber: 'QB-1', subtotal: 8, quickPay: 8 });
    await heal(c);
    const flag = async () => (await c.central.engine.db.selectFrom('user_vendors').select('flagged_reason').where('user_id', '=', userId).executeTakeFirstOrThrow()).flagged_reason;
    const resolved = async () => (await c.central.engine.db.selectFrom('sync_exceptions').select('resolved_at').where('kind', '=', 'offline_overdraft').executeTakeFirstOrThrow()).resolved_at;
    const balance = (currencyId: number) => holderBalance(c.central.engine.db, { holderType: 'user', holderId: userId, currencyId });
    expect([await flag(), await balance(quickPayCurrencyId), await resolved()]).toEqual(['offline_overdraft', -600, null]);
    // A sale that earns points (the points account is positive) settles nothing of the quick-pay debt.
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'di@example.com', receiptNumber: 'QA-2', subtotal: 4 });
    await heal(c);
    expect(await balance(loyaltyCurrencyId)).toBeGreaterThan(0);
    expect([await flag(), await balance(quickPayCurrencyId), await resolved()]).toEqual(['offline_overdraft', -600, null]);
    // A credit that leaves quick pay still below zero settles nothing either; one that clears it does.
    await creditAtCentral(500);
    expect([await flag(), await resolved()]).toEqual(['offline_overdraft', null]);
    await creditAtCentral(100);
    expect(await flag()).toBeNull();
    expect(await resolved()).not.toBeNull();
  });

  it('offline caps apply only while the store cannot reach central', async () => {
    const c = await chain();
    const currency = await c.central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', c.central.vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
    const reward = await createSpendingRule(c.central.engine, { vendorId: c.central.vendor.vendorId }, { name: 'Cake', cost: 15, currency: currency.public_id });
    await setOfflinePolicy(c.central.engine, { vendorId: c.central.vendor.vendorId }, { pointsPerOrder: 10 });
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'di@example.com' });
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'di@example.com', receiptNumber: 'A-1', subtotal: 50 });
    await heal(c);
    await offline(c.a);
    const refused = await placeOrder(c.a.engine, await c.a.scope(), { identification: 'di@example.com', receiptNumber: 'A-2', subtotal: 0, redemptions: [reward.publicId] }).catch((e: unknown) => e);
    expect(isServiceError(refused) && refused.code).toBe('offline_limit');
    expect((refused as Error).message).toContain('10');
    await heal(c);
    await placeOrder(c.a.engine, await c.a.scope(), { identification: 'di@example.com', receiptNumber: 'A-3', subtotal: 0, redemptions: [reward.publicId] });
    const orders = await c.a.engine.db.selectFrom('orders').select(['receipt_number', 'offline']).orderBy('receipt_number').execute();
    expect(orders).toEqual([
      { receipt_number: 'A-1', offline: 0 },
      { receipt_number: 'A-3', offline: 0 },
    ]);
  });
});

describe('pairing', () => {
  it('a code works once, not after 15 minutes, and a revoked node is told so', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const { vendorId, storeId } = central.vendor;
    const first = await issuePairingCode(central.engine, vendorId, storeId);
    expect(first.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    const paired = await pairNode(central.engine, first.code.toLowerCase().replace('-', ' '), 'till 1');
    await expect(pairNode(central.engine, first.code, 'again')).rejects.toMatchObject({ code: 'pairing_code_invalid' });
    const late = await issuePairingCode(central.engine, vendorId, storeId);
    clock.advance(15 * 60_000);
    await expect(pairNode(central.engine, late.code, 'late')).rejects.toMatchObject({ code: 'pairing_code_invalid' });
    expect(await authenticateNode(central.engine, paired.credential)).toMatchObject({ id: paired.node_id, vendorId, storeId });
    await revokeSyncNode(central.engine, vendorId, paired.node_id);
    await expect(authenticateNode(central.engine, paired.credential)).rejects.toMatchObject({ code: 'node_revoked', status: 401 });
    const stored = await central.engine.db.selectFrom('sync_nodes').select('credential_hash').executeTakeFirstOrThrow();
    expect(stored.credential_hash).not.toContain(paired.credential.slice(4));
    // Another store's code cannot be issued by a vendor that does not own it.
    await expect(issuePairingCode(central.engine, vendorId + 1, storeId)).rejects.toMatchObject({ code: 'store_not_found' });
  });
});
