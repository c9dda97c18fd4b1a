import { afterEach, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { SyncClient } from '../../src/core/sync/store/sync-client';
import { ManualClock } from '../support/clock';
import { pairStore, startCentral, Switch } from './support/chain';

// A store stopped (SIGTERM) while it sends a long backlog: the round ends after the page under way
// instead of sending everything first (14,000 events held a stop 17 s, past a service manager's
// patience); what is left goes at the next start, once.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

describe('stopping a store in the middle of a backlog', () => {
  it('ends after the page under way; the rest arrives at the next round, each sale once', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    let stopDuringPush: (() => void) | null = null;
    let pages = 0;
    const stopping = (credential: string) => {
      const inner = central.transportFor(credential);
      const push: typeof inner.push = async (request) => {
        const reply = await inner.push(request);
        pages += 1;
        stopDuringPush?.();
        return reply;
      };
      return new Switch({ ...inner, push });
    };
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, stopping, undefined, { pushPage: 10 });
    open.push(store);
    const scope = await store.scope();
    await registerInStore(store.engine, scope, { email: 'backlog@example.com' });
    await store.client.syncOnce();
    for (let i = 0; i < 60; i += 1) await placeOrder(store.engine, scope, { identification: 'backlog@example.com', receiptNumber: `B-${i}`, subtotal: 1 });

    pages = 0;
    store.client.start({ idleMs: 60_000 });
    let stopped: Promise<void> | null = null;
    stopDuringPush = () => {
      stopped ??= store.client.stop();
    };
    store.client.poke();
    await new Promise<void>((resolve) => {
      const wait = setInterval(() => {
        if (stopped) {
          clearInterval(wait);
          resolve();
        }
      }, 5);
    });
    await stopped;
    expect(pages).toBe(1);
    const atCentral = async () => Number((await central.engine.db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n')).where('receipt_number', 'like', 'B-%').executeTakeFirstOrThrow()).n);
    expect(await atCentral()).toBeLessThan(60);

    // The next start (a new client on the same database) sends the rest.
    stopDuringPush = null;
    const restarted = new SyncClient(store.engine, stopping(store.credential), { vendorId: central.vendor.vendorId, storeId: store.storeId, pushPage: 10 });
    await restarted.syncOnce();
    expect(await atCentral()).toBe(60);
  }, 60_000);
});
