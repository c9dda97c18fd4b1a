import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, transact } from '../../src/core/engine';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { replayEvents } from '../../src/core/webhooks/delivery-log';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { recordCustomerDeleted } from '../../src/core/webhooks/events';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// The webhook outbox on both dialects: the 0013 migration, an event written only if its
// transaction commits, and two delivery passes at once sending each delivery once.

describe.each(BACKENDS)('webhook storage on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  let vendor: VendorCredentials;
  let receiver: WebhookReceiver;
  let endpointId: string;
  const clock = new ManualClock();

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
    vendor = await setUpVendor(engine, testVendor('Contract Hooks'));
    receiver = await startWebhookReceiver();
    const created = await createWebhookEndpoint(engine, vendor, { url: receiver.url, events: ['customer.deleted'] }, { allowPrivate: true });
    endpointId = created.endpoint.id;
    receiver.secrets = [created.secret];
  });
  afterEach(() => {
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await receiver?.close();
    await close?.();
  });

  it('writes an event with its transaction, and none when it rolls back', async () => {
    await expect(
      transact(engine, async (trx) => {
        await recordCustomerDeleted(trx, engine, { vendorId: vendor.vendorId, userId: 7 });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await engine.db.selectFrom('webhook_events').selectAll().execute()).toEqual([]);
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);

    const id = await transact(engine, (trx) => recordCustomerDeleted(trx, engine, { vendorId: vendor.vendorId, userId: 7 }));
    const [event] = await engine.db.selectFrom('webhook_events').selectAll().where('id', '=', id!).execute();
    expect(event).toMatchObject({ vendor_id: vendor.vendorId, type: 'customer.deleted', data: JSON.stringify({ user_id: 7 }), created_at: clock.now() });
    expect(await deliverDueWebhooks(engine, { allowPrivate: true })).toMatchObject({ succeeded: 1 });
    expect(receiver.received.map((r) => r.verified)).toEqual([true]);
  });

  it('sends each delivery once when two passes run at the same moment', async () => {
    for (let user = 1; user <= 5; user++) await transact(engine, (trx) => recordCustomerDeleted(trx, engine, { vendorId: vendor.vendorId, userId: user }));
    const [a, b] = await Promise.all([deliverDueWebhooks(engine, { allowPrivate: true }), deliverDueWebhooks(engine, { allowPrivate: true })]);
    expect(a.succeeded + b.succeeded).toBe(5);
    expect(receiver.received.map((r) => r.body.data.user_id).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('replays a time range in the order events happened', async () => {
    const queued = await replayEvents(engine, vendor, endpointId, { from: clock.now(), to: clock.now() + 1 });
    expect(queued.queued).toBe(6);
    await deliverDueWebhooks(engine, { allowPrivate: true });
    expect(receiver.received.map((r) => r.body.data.user_id)).toEqual([7, 1, 2, 3, 4, 5]);
  });
});
