import { afterEach, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { EVENTS_ALONE_PER_PUSH } from '../../src/core/sync/central/apply-push';
import type { PushResponse } from '../../src/core/sync/protocol';
import { PUSH_PAGE } from '../../src/core/sync/store/sync-client';
import { ManualClock } from '../support/clock';
import { centralDatabases, pairStore, startCentral, Switch } from './support/chain';

// A store back online with many events central applies one by one (voids of sales it holds): one
// push applied them all in one transaction, and every other write of central waited (5–10 s on
// PostgreSQL for 1,000 voids). Central now takes EVENTS_ALONE_PER_PUSH of them a push and answers
// resume_from; the store sends the rest at once, and everything arrives, once.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

describe.each(centralDatabases((handle) => open.push(handle)))('a long run of voids pushed at once (central on $name)', ({ database }) => {
  it('arrives in pages of at most EVENTS_ALONE_PER_PUSH events applied alone, each sale voided once', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock, await database());
    open.push(central);
    let link: Switch | null = null;
    const replies: PushResponse[] = [];
    // The store sends pages as `punchcard store` does (PUSH_PAGE), and the test reads central's replies.
    const recording = (credential: string) => {
      const inner = central.transportFor(credential);
      const push: typeof inner.push = async (request) => {
        const reply = await inner.push(request);
        replies.push(reply);
        return reply;
      };
      return (link = new Switch({ ...inner, push }));
    };
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, recording, undefined, { pushPage: PUSH_PAGE });
    open.push(store);
    const scope = await store.scope();
    await registerInStore(store.engine, scope, { email: 'many.voids@example.com' });
    const sales = EVENTS_ALONE_PER_PUSH * 2 + 30;
    for (let i = 0; i < sales; i += 1) await placeOrder(store.engine, scope, { identification: 'many.voids@example.com', receiptNumber: `V-${i}`, subtotal: 2 });
    await store.client.syncOnce();

    link!.down = true;
    await store.client.syncOnce().catch(() => undefined);
    for (let i = 0; i < sales; i += 1) await voidOrder(store.engine, scope, `V-${i}`);
    link!.down = false;
    replies.length = 0;
    await store.client.syncOnce();

    const applied = replies.map((reply) => reply.results.length).filter((n) => n > 0);
    expect(applied.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...applied)).toBeLessThanOrEqual(EVENTS_ALONE_PER_PUSH);
    expect(replies.slice(0, -1).every((reply) => reply.resume_from !== null)).toBe(true);
    const voided = await central.engine.db.selectFrom('orders').select('status').where('receipt_number', 'like', 'V-%').execute();
    expect(voided).toHaveLength(sales);
    expect(new Set(voided.map((o) => o.status))).toEqual(new Set(['voided']));
    expect(await central.engine.db.selectFrom('sync_exceptions').select('kind').execute()).toEqual([]);
    expect((await store.engine.db.selectFrom('sync_events').select('verdict').where('acked_at', 'is', null).execute()).length).toBe(0);
  }, 120_000);
});
