import { afterEach, describe, expect, it } from 'vitest';
import { placeOrder } from '../../src/core/orders/place-order';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import type { SyncTransport } from '../../src/core/sync/store/sync-client';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { startWebhookWorker } from '../../src/core/webhooks/worker';
import { ManualClock } from '../support/clock';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// A sale made at a store while it was offline, as a receiver meets it (docs/decisions.md, "Where
// deliveries come from"): delivered once, by central, over real HTTP, signed, dated when the sale
// happened — not by the store, not again when the store pushes the same sale a second time because
// central's answer to its first push was lost.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

/** The store's link: down, up, or up but losing the answer of the next push (central has applied it). */
class Link implements SyncTransport {
  down = false;
  loseNextAnswer = false;
  constructor(private readonly inner: SyncTransport) {}
  push: SyncTransport['push'] = async (request) => {
    if (this.down) throw new Error('down');
    const answer = await this.inner.push(request);
    if (this.loseNextAnswer) {
      this.loseNextAnswer = false;
      throw new Error('the answer was lost on the way back');
    }
    return answer;
  };
  pull: SyncTransport['pull'] = (after, limit) => (this.down ? Promise.reject(new Error('down')) : this.inner.pull(after, limit));
  snapshot: SyncTransport['snapshot'] = (request) => (this.down ? Promise.reject(new Error('down')) : this.inner.snapshot!(request));
}

async function chainWithReceiver(): Promise<{ clock: ManualClock; central: CentralHandle; store: StoreHandle; link: Link; receiver: WebhookReceiver }> {
  const clock = new ManualClock();
  const central = await startCentral(clock);
  open.push(central);
  let link: Link | null = null;
  const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => (link = new Link(central.transportFor(credential))));
  open.push(store);
  const receiver = await startWebhookReceiver();
  open.push(receiver);
  const events = ['customer.registered', 'check_in.opened', 'check_in.closed', 'order.placed', 'balance.updated'];
  const { secret } = await createWebhookEndpoint(central.engine, { vendorId: central.vendor.vendorId }, { url: receiver.url, events }, { allowPrivate: true });
  receiver.secrets = [secret];
  return { clock, central, store, link: link!, receiver };
}

const deliverAll = async (central: CentralHandle) => {
  while ((await deliverDueWebhooks(central.engine, { allowPrivate: true })).succeeded > 0);
};

describe('a sale made at a store while offline', () => {
  it('reaches the receiver once, from central, signed and dated when it happened, even when the store pushes it twice', async () => {
    const { clock, central, store, link, receiver } = await chainWithReceiver();
    // The store delivers nothing itself: it has no worker, and a pass there sends nothing.
    expect(startWebhookWorker(store.engine, { allowPrivate: true })).toBeNull();

    link.down = true;
    const soldAt = clock.now();
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'R-1', subtotal: 12 });
    expect(await deliverDueWebhooks(store.engine, { allowPrivate: true })).toEqual({ succeeded: 0, retrying: 0, failed: 0, skipped: 0 });
    await deliverAll(central);
    expect(receiver.received).toEqual([]);

    // Back online an hour later; central applies the first push but its answer is lost, so the store pushes the same events again.
    clock.advance(3_600_000);
    link.down = false;
    link.loseNextAnswer = true;
    await store.client.syncOnce().catch(() => undefined);
    expect(link.loseNextAnswer).toBe(false);
    for (let round = 0; round < 3; round += 1) await store.client.syncOnce();
    await deliverAll(central);

    const types = receiver.received.map((hit) => hit.body.type).sort();
    expect(types).toEqual(['balance.updated', 'check_in.closed', 'check_in.opened', 'customer.registered', 'order.placed']);
    expect(new Set(receiver.received.map((hit) => hit.body.id)).size).toBe(5);
    for (const hit of receiver.received) {
      expect(hit.verified, hit.raw).toBe(true);
      expect(hit.body.created).toBe(Math.floor(soldAt / 1000));
      expect(hit.body.vendor).toBe(central.vendor.vendorId);
    }
    expect(receiver.ofType('order.placed')[0]!.body.data).toMatchObject({ receipt_number: 'R-1', subtotal: 12, total: 12, points_earned: 12, date_ordered: Math.floor(soldAt / 1000) });
    // Nothing more later: another sync round and delivery pass send nothing new.
    await store.client.syncOnce();
    await deliverAll(central);
    expect(receiver.received).toHaveLength(5);
  });
});
