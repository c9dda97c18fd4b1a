import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startJobs } from '../../src/server/node/jobs';
import { closeSession } from '../../src/core/onscreen/close-session';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { summariseOutbox } from '../../src/core/sync/outbox/pending-events';
import { KEEP_APPLIED_MS, KEEP_REFUSED_MS, oldestEventsAfter, pruneAnsweredEvents } from '../../src/core/sync/outbox/prune-answered-events';
import { ManualClock } from '../support/clock';
import { queryPlan } from '../support/query-plan';
import { type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// A store's outbox would otherwise keep every event it ever pushed (docs/sync.md, "Status").
describe('a store prunes the events central answered long ago', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });

  async function chain(): Promise<{ clock: ManualClock; central: CentralHandle; store: StoreHandle }> {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    open.push(store);
    return { clock, central, store };
  }

  const seqs = async (store: StoreHandle) => (await store.engine.db.selectFrom('sync_events').select(['node_seq', 'verdict']).orderBy('node_seq').execute()).map((e) => `${e.node_seq}:${e.verdict ?? 'pending'}`);
  const centralOrders = async (central: CentralHandle) => (await central.engine.db.selectFrom('orders').select('receipt_number').orderBy('receipt_number').execute()).map((o) => o.receipt_number);

  it('applied events after a month, refused ones after half a year, pending ones never; numbering goes on where it was', async () => {
    const { clock, central, store } = await chain();
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    for (const receipt of ['R1', 'R2', 'R3']) await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: receipt, subtotal: 10 });
    await store.client.syncOnce();
    const answered = await seqs(store);
    expect(answered.length).toBeGreaterThanOrEqual(4);
    expect(answered.every((e) => e.endsWith(':applied'))).toBe(true);
    // The oldest one as if central had refused it (the list staff see in Settings).
    const [first] = answered.map((e) => Number(e.split(':')[0]));
    await sql`update sync_events set verdict = 'rejected', verdict_code = 'apply_failed' where node_seq = ${first}`.execute(store.engine.db);

    // Within the month nothing goes.
    clock.advance(KEEP_APPLIED_MS - 60_000);
    expect(await pruneAnsweredEvents(store.engine)).toBe(0);

    // A month on: the applied ones go; the refused one stays, and so does a sale not yet pushed.
    clock.advance(120_000);
    await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'R4', subtotal: 10 });
    expect(await pruneAnsweredEvents(store.engine)).toBe(answered.length - 1);
    const last = Number(answered.at(-1)!.split(':')[0]);
    expect(await seqs(store)).toEqual([`${first}:rejected`, `${last + 1}:pending`]);
    expect(await summariseOutbox(store.engine.db)).toMatchObject({ pending: 1, rejected: 1 });

    // The pending sale still travels, under the next number.
    await store.client.syncOnce();
    expect(await centralOrders(central)).toEqual(['R1', 'R2', 'R3', 'R4']);

    // Half a year on, the refused one goes too, and so does the last applied one: the outbox is empty.
    clock.advance(KEEP_REFUSED_MS);
    expect(await pruneAnsweredEvents(store.engine)).toBe(2);
    expect(await seqs(store)).toEqual([]);

    // The next sale is numbered after every event ever made, not from 1 again: central, which
    // answers a number it already took with its stored verdict, would otherwise drop it as a repeat.
    await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'R5', subtotal: 10 });
    expect(await seqs(store)).toEqual([`${last + 2}:pending`]);
    await store.client.syncOnce();
    expect(await centralOrders(central)).toEqual(['R1', 'R2', 'R3', 'R4', 'R5']);
    expect(await seqs(store)).toEqual([`${last + 2}:applied`]);
  });

  it('is one of the hourly jobs of a store node (startJobs)', async () => {
    const { clock, store } = await chain();
    const scope = await store.scope();
    const registered = await registerInStore(store.engine, scope, { email: 'bo@example.com', firstName: 'Bo' });
    // Served and closed (a check-in left open for hours would be closed by the jobs, a new event).
    await closeSession(store.engine, scope, registered.session.hash);
    await store.client.syncOnce();
    expect((await seqs(store)).length).toBeGreaterThan(0);
    clock.advance(KEEP_APPLIED_MS + 60_000);
    // The jobs' timers are driven by hand: the first run one second after start.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    try {
      const stop = startJobs(store.engine);
      await vi.advanceTimersByTimeAsync(1_000);
      await stop();
    } finally {
      vi.useRealTimers();
    }
    expect(await seqs(store)).toEqual([]);
  });

  it('reads the outbox from its oldest event along the primary key, a page at a time', async () => {
    const { store } = await chain();
    expect(await queryPlan(store.engine.db, oldestEventsAfter(store.engine.db, 0, 1000).compile())).toMatch(/^SEARCH sync_events USING INDEX sqlite_autoindex_sync_events_1 \(node_seq>\?\)$/);
  });
});
