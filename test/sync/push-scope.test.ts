import { afterEach, describe, expect, it } from 'vitest';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { holderBalance, openAccount, postEntry } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { acceptPushedEvents, type PairedNode } from '../../src/core/sync/central/apply-push';
import { listSyncExceptions } from '../../src/core/sync/central/sync-exceptions';
import { readPendingEvents } from '../../src/core/sync/outbox/pending-events';
import type { PushedEvent } from '../../src/core/sync/protocol';
import { composeId } from '../../src/core/storage/ids';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, pairFirstStore, startCentral, type StoreHandle } from './support/chain';

// A paired node's credential sits on a shop's PC, and one central may serve several programs: what
// a node pushes may not reach outside its program or its store (src/core/sync/central/push-scope.ts).
// Each forged push below was applied before (a security review's proofs of concept); now it is
// refused, event by event, and changes nothing of the other program or store.

describe('what a paired node may push', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });

  async function pairedNode(): Promise<{ clock: ManualClock; central: CentralHandle; store: StoreHandle; node: PairedNode }> {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const { store, node } = await pairFirstStore(central, clock);
    open.push(store);
    return { clock, central, store, node };
  }

  async function otherProgramsCustomer(central: CentralHandle) {
    const b = await setUpVendor(central.engine, { name: 'Vendor B', currency: 'USD', country: 'US', store: { name: 'B1', address1: '1 B Street', city: 'Bville' } });
    const { user } = await registerCustomer(central.engine, { vendorId: b.vendorId, firstName: 'Vic', lastName: 'Tim', email: 'vic@b.example', password: 'a long password 123', terms: true });
    return { b, userId: Number(user.id) };
  }

  async function nextSeq(central: CentralHandle, node: PairedNode): Promise<number> {
    const row = await central.engine.db.selectFrom('sync_nodes').select('last_seq').where('id', '=', node.id).executeTakeFirstOrThrow();
    return Number(row.last_seq) + 1;
  }

  const forged = (seq: number, at: number, tbl: string, data: Record<string, unknown>): PushedEvent => ({ node_seq: seq, event_id: `forged-${seq}`, type: 'local.write', offline: false, created_at: at, changes: [{ tbl, op: 'upsert', data }] }) as PushedEvent;

  it('refuses a ledger entry in another program’s currency: that program’s balance does not move', async () => {
    const { clock, central, node } = await pairedNode();
    const { b, userId } = await otherProgramsCustomer(central);
    const key = { holderType: 'user' as const, holderId: userId, currencyId: b.quickPayCurrencyId };
    const account = await openAccount(central.engine.db, central.engine, { vendorId: b.vendorId, ...key });
    await postEntry(central.engine.db, central.engine, account, { amount: 100, kind: 'adjustment' });
    const now = clock.now();
    const entry = { id: composeId(node.id, 777_777), vendor_id: node.vendorId, holder_type: 'user', holder_id: userId, currency_id: b.quickPayCurrencyId, amount: 50_000, kind: 'adjustment', reference_type: null, reference_id: null, reverses_id: null, origin_node: node.id, created_at: now, expires_at: null };
    const { results } = await acceptPushedEvents(central.engine, node, [forged(await nextSeq(central, node), now, 'ledger_entries', entry)]);
    expect(results.map((r) => [r.verdict, r.code])).toEqual([['rejected', 'foreign_vendor']]);
    expect(await holderBalance(central.engine.db, key)).toBe(100);
  });

  it('refuses a membership of a customer its program does not have: their profile never reaches the node', async () => {
    const { clock, central, node } = await pairedNode();
    const { userId } = await otherProgramsCustomer(central);
    const now = clock.now();
    const membership = {
      id: composeId(node.id, 999_999), user_id: userId, vendor_id: node.vendorId, contact_consent: 0, language: null, tier_id: null, tier_since: 0, reload_amount: 0, reload_threshold: 0,
      billing_profile_id: null, flagged: 0, referral_code: 'forged1', newsletters: '{}', push_endpoints: '{"gcm":[],"apns":[]}', first_login_at: null, created_at: now, updated_at: now, removed_at: null, counter_enrolled: 0,
      flagged_reason: null, blocked_at: null, blocked_reason: null,
    };
    const { results } = await acceptPushedEvents(central.engine, node, [forged(await nextSeq(central, node), now, 'user_vendors', membership)]);
    expect(results.map((r) => [r.verdict, r.code])).toEqual([['rejected', 'foreign_vendor']]);
    const members = await central.engine.db.selectFrom('user_vendors').select('vendor_id').where('user_id', '=', userId).execute();
    expect(members.map((m) => m.vendor_id)).not.toContain(node.vendorId);
  });

  it('refuses sales and check-ins written for another store of its program', async () => {
    const { central, store, node } = await pairedNode();
    const other = await addStore(central, 'Other store');
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'R-1', subtotal: 10 });
    const events = await readPendingEvents(store.engine, 100);
    for (const event of events) for (const change of event.changes) if ('store_id' in change.data) change.data['store_id'] = other.storeId;
    const { results } = await acceptPushedEvents(central.engine, node, events);
    expect(results.some((r) => r.verdict === 'rejected' && r.code === 'foreign_store')).toBe(true);
    expect(await central.engine.db.selectFrom('orders').select('id').where('store_id', '=', other.storeId).execute()).toEqual([]);
    expect(await central.engine.db.selectFrom('pos_sessions').select('id').where('store_id', '=', other.storeId).execute()).toEqual([]);
    // The exception keeps why, beside the English, for the chain page to say it in its language (fifteenth round).
    const [refused] = (await listSyncExceptions(central.engine, node.vendorId)).filter((e) => e.kind === 'event_rejected');
    const session = events[0]!.changes.find((c) => c.tbl === 'pos_sessions')!.data['id'];
    expect(refused?.said).toEqual({
      key: 'event_rejected',
      params: { code: 'foreign_store', reason: `pos_sessions ${String(session)} names another store`, why: 'names_other_store', table: 'pos_sessions', id: session },
    });
  });
});
