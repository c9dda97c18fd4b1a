import { afterEach, describe, expect, it } from 'vitest';
import { holderBalance } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { acceptPushedEvents, type PairedNode } from '../../src/core/sync/central/apply-push';
import { readPendingEvents } from '../../src/core/sync/outbox/pending-events';
import type { PushedEvent } from '../../src/core/sync/protocol';
import { compactChangeLog } from '../../src/core/sync/central/compact-change-log';
import { KEEP_EVENT_IDS_MS } from '../../src/core/sync/central/sync-event-ids';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairFirstStore, startCentral, type StoreHandle } from './support/chain';

// Central's side of a push, event by event (docs/sync.md, "Store → central"): a page sent again is
// answered from what central kept (applied events are not applied twice, a rejection keeps its code
// and message), a gap names where to resume, and central keeps a verdict row for rejections only.

describe('a store’s push at central', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });

  async function storeWithSales(): Promise<{ central: CentralHandle; store: StoreHandle; node: PairedNode; events: PushedEvent[] }> {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const { store, node } = await pairFirstStore(central, clock);
    open.push(store);
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    for (const [receipt, subtotal] of [
      ['R-1', 10],
      ['R-2', 25],
    ] as const) {
      await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: receipt, subtotal });
    }
    const events = await readPendingEvents(store.engine, 100);
    return { central, store, node, events };
  }

  const ordersAt = async (central: CentralHandle) => Number((await central.engine.db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('applies nothing of a push whose node was revoked after its credential was checked', async () => {
    const { central, node, events } = await storeWithSales();
    // The push authenticated, then staff removed the node before its transaction began.
    await central.engine.db.updateTable('sync_nodes').set({ revoked_at: central.engine.clock.now() }).where('id', '=', node.id).execute();
    await expect(acceptPushedEvents(central.engine, node, events)).rejects.toMatchObject({ code: 'node_revoked' });
    expect(await ordersAt(central)).toBe(0);
  });

  it('answers a page sent again from what it kept: nothing is applied twice', async () => {
    const { central, node, events } = await storeWithSales();
    const first = await acceptPushedEvents(central.engine, node, events);
    expect(first.results.map((r) => r.verdict)).toEqual(events.map(() => 'applied'));
    const orders = await ordersAt(central);
    const user = (await central.engine.db.selectFrom('users').select('id').where('email_key', 'is not', null).executeTakeFirstOrThrow()).id;
    const key = { holderType: 'user' as const, holderId: Number(user), currencyId: central.vendor.loyaltyCurrencyId };
    const balance = await holderBalance(central.engine.db, key);
    expect([orders, balance]).toEqual([2, 35]);

    const again = await acceptPushedEvents(central.engine, node, events);
    expect(again).toEqual(first);
    expect([await ordersAt(central), await holderBalance(central.engine.db, key)]).toEqual([2, 35]);
    // Applied events leave no verdict row: at or below the node's last, no row means applied.
    expect(await central.engine.db.selectFrom('sync_verdicts').selectAll().execute()).toEqual([]);
  });

  it('keeps a rejection with its code and message, and answers it again unchanged', async () => {
    const { central, node, events } = await storeWithSales();
    const next = events.length + 1;
    const forbidden: PushedEvent = { node_seq: next, event_id: 'evt-bad', type: 'local.write', offline: false, created_at: 0, changes: [{ tbl: 'vendors', op: 'upsert', data: { id: 1 } }] };
    const first = await acceptPushedEvents(central.engine, node, [...events, forbidden]);
    const rejected = first.results.find((r) => r.node_seq === next);
    expect(rejected).toMatchObject({ verdict: 'rejected', code: 'table_not_accepted', event_id: 'evt-bad' });
    const again = await acceptPushedEvents(central.engine, node, [forbidden]);
    expect(again.results).toEqual([rejected]);
    const kept = await central.engine.db.selectFrom('sync_verdicts').select(['node_seq', 'verdict', 'code']).execute();
    expect(kept).toEqual([{ node_seq: next, verdict: 'rejected', code: 'table_not_accepted' }]);
  });

  it('refuses a gap by naming where to resume, and applies nothing past it', async () => {
    const { central, node, events } = await storeWithSales();
    expect(events.length).toBeGreaterThanOrEqual(3);
    const gap = await acceptPushedEvents(central.engine, node, [events[0]!, events[2]!]);
    expect(gap.resume_from).toBe(events[1]!.node_seq);
    expect(gap.results.map((r) => r.node_seq)).toEqual([events[0]!.node_seq]);
    expect(await ordersAt(central)).toBe(events.slice(0, 1).filter((e) => e.changes.some((c) => c.tbl === 'orders')).length);
    const rest = await acceptPushedEvents(central.engine, node, events.slice(1));
    expect(rest.resume_from).toBeNull();
    expect(await ordersAt(central)).toBe(2);
  });

  it('tells another event at a number it took from a resend, across the pushes that took them', async () => {
    const { central, node, events } = await storeWithSales();
    // Taken one push at a time: central keeps one row per push.
    for (const event of events) await acceptPushedEvents(central.engine, node, [event]);
    const other = (event: PushedEvent): PushedEvent => ({ ...event, event_id: `other-${event.event_id}` });
    const seqs = events.map((e) => e.node_seq);
    expect((await acceptPushedEvents(central.engine, node, events)).diverged).toBeUndefined();
    expect((await acceptPushedEvents(central.engine, node, [events[1]!, other(events[2]!)])).diverged?.node_seq).toBe(seqs[2]);
    const answer = await acceptPushedEvents(central.engine, node, [events[0]!, other(events[1]!), events[2]!]);
    expect(answer.diverged).toEqual({ node_seq: seqs[1], last_seq: seqs.at(-1), highest_id: expect.any(Number) });
    expect(answer.results.map((r) => r.node_seq)).toEqual([seqs[0]]);
    expect(await ordersAt(central)).toBe(2);
  });

  it('tells another event at a number it took from a resend for 90 days of the node’s pushes, then forgets', async () => {
    const { central, store, node, events } = await storeWithSales();
    const clock = central.engine.clock as ManualClock;
    await acceptPushedEvents(central.engine, node, events);
    const [first, second] = events as [PushedEvent, PushedEvent];
    const other = (event: PushedEvent): PushedEvent => ({ ...event, event_id: `other-${event.event_id}` });
    expect((await acceptPushedEvents(central.engine, node, [other(first)])).diverged).toMatchObject({ node_seq: first.node_seq, last_seq: events.at(-1)!.node_seq });

    // 91 days on the store pushes again; the hourly compaction forgets what was answered before the node's last 90 days.
    clock.advance(KEEP_EVENT_IDS_MS + 24 * 3600_000);
    await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'R-3', subtotal: 5 });
    const later = (await readPendingEvents(store.engine, 100)).filter((e) => e.node_seq > events.at(-1)!.node_seq);
    expect((await acceptPushedEvents(central.engine, node, later)).results.map((r) => r.verdict)).toEqual(['applied']);
    await compactChangeLog(central.engine.db);
    // One row a push: its first number and its events' ids.
    const kept = await central.engine.db.selectFrom('sync_event_ids').select(['first_seq', 'event_ids']).where('node_id', '=', node.id).execute();
    expect(kept.map((r) => [Number(r.first_seq), JSON.parse(r.event_ids)])).toEqual([[later[0]!.node_seq, later.map((e) => e.event_id)]]);
    // Past the horizon a number is answered as before, from what central kept (docs/sync.md); within it, still told apart.
    expect(await acceptPushedEvents(central.engine, node, [other(second)])).toEqual({ results: [{ node_seq: second.node_seq, event_id: `other-${second.event_id}`, verdict: 'applied', code: null, message: null }], resume_from: null });
    expect((await acceptPushedEvents(central.engine, node, [other(later[0]!)])).diverged?.node_seq).toBe(later[0]!.node_seq);
    expect(await ordersAt(central)).toBe(3);
  });
});
