import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { ManualClock } from '../support/clock';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { type CentralHandle, closedAfterEach, pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// A void takes back the tier its sale got (orders/tier-progress.ts) wherever the void is made. Rows
// travel, not commands: a store's void moves the member's tier at the store, and central takes the
// membership's tier (a column stores may write), the history note and the tier.changed event from
// the push. A void made at central moves it there, and stores pull it. One order voided at both (a
// store offline) moves the tier once: the later note is kept as a repeat, like the later void record.

const HOUR = 3_600_000;
const keep = closedAfterEach();

interface Chain {
  clock: ManualClock;
  central: CentralHandle;
  store: StoreHandle & { link: Switch };
  userId: number;
}

/** Central with Silver (20) and Gold (50, no window), one store, and a member registered there; tier.changed goes to `hooks`. */
async function chain(hooks = { url: 'https://hooks.example.com/punchcard', allowPrivate: false }): Promise<Chain> {
  const clock = new ManualClock();
  const central = keep(await startCentral(clock));
  const vendor = { vendorId: central.vendor.vendorId };
  await createTier(central.engine, vendor, { name: 'Silver', threshold: 20, windowDays: 30 });
  await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
  await createWebhookEndpoint(central.engine, vendor, { url: hooks.url, events: ['tier.changed'] }, { allowPrivate: hooks.allowPrivate });
  const store = keep(await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }));
  await sync(store);
  const { session } = await registerInStore(store.engine, await store.scope(), { email: 'gil@example.com', firstName: 'Gil' });
  clock.advance(HOUR);
  return { clock, central, store, userId: Number(session.user_id) };
}

async function sync(store: StoreHandle): Promise<void> {
  for (let round = 0; round < 3; round += 1) await store.client.syncOnce();
}

async function membership(engine: Engine, userId: number) {
  return engine.db
    .selectFrom('user_vendors as uv')
    .innerJoin('tiers as t', 't.id', 'uv.tier_id')
    .select(['t.name as tier', 'uv.tier_since'])
    .where('uv.user_id', '=', userId)
    .executeTakeFirstOrThrow();
}

/** The member's tier notes at a node (the sales' promotions and the voids' take-backs): status and change, oldest first. */
async function notes(engine: Engine, userId: number) {
  const rows = await engine.db
    .selectFrom('transactions')
    .select(['status', 'rewards'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'tier_change')
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => `${r.status}: ${(JSON.parse(r.rewards) as Array<{ name: string }>)[0]!.name}`);
}

const tierEvents = async (c: Chain) =>
  (await c.central.engine.db.selectFrom('webhook_events').select('data').where('type', '=', 'tier.changed').orderBy('created_at').execute()).map((e) => {
    const data = JSON.parse(e.data) as { from: { name: string } | null; to: { name: string } };
    return `${data.from?.name ?? '-'} → ${data.to.name}`;
  });

async function bigSale(c: Chain): Promise<void> {
  await placeOrder(c.store.engine, await c.store.scope(), { identification: 'gil@example.com', receiptNumber: 'R-big', subtotal: 80 });
  c.clock.advance(HOUR);
}

describe('a voided sale’s tier across the chain', () => {
  it('a store’s void: central takes the tier back from the push, with the note and the tier.changed event', async () => {
    const c = await chain();
    const member = await membership(c.store.engine, c.userId);
    await bigSale(c);
    await sync(c.store);
    expect((await membership(c.central.engine, c.userId)).tier).toBe('Gold');
    await voidOrder(c.store.engine, await c.store.scope(), 'R-big');
    await sync(c.store);
    // The sale's note of its promotion and the void's of the take-back: neither is the other's repeat.
    for (const engine of [c.store.engine, c.central.engine]) {
      expect(await membership(engine, c.userId)).toEqual(member);
      expect(await notes(engine, c.userId)).toEqual(['Complete: Member → Gold', 'Complete: Gold → Member']);
    }
    // One event per move: the promotion's note raises none of its own.
    expect(await tierEvents(c)).toEqual(['Member → Gold', 'Gold → Member']);
  });

  it('a store’s offline sale voided offline: central ends where it began', async () => {
    const c = await chain();
    await sync(c.store);
    const member = await membership(c.central.engine, c.userId);
    c.store.link.down = true;
    await bigSale(c);
    await voidOrder(c.store.engine, await c.store.scope(), 'R-big');
    c.store.link.down = false;
    await sync(c.store);
    expect(await membership(c.central.engine, c.userId)).toEqual(member);
    expect(await notes(c.central.engine, c.userId)).toEqual(['Complete: Member → Gold', 'Complete: Gold → Member']);
  });

  it('a store’s sale voided at central: central moves the tier, and the store pulls it', async () => {
    const c = await chain();
    const member = await membership(c.store.engine, c.userId);
    await bigSale(c);
    await sync(c.store);
    await voidOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.central.vendor.apiKey), 'R-big');
    await sync(c.store);
    for (const engine of [c.central.engine, c.store.engine]) {
      expect(await membership(engine, c.userId)).toEqual(member);
      expect(await notes(engine, c.userId)).toEqual(['Complete: Member → Gold', 'Complete: Gold → Member']);
    }
  });

  it('one sale voided at the store offline and at central: the tier moves once, the later note is a repeat', async () => {
    const c = await chain();
    const member = await membership(c.store.engine, c.userId);
    await bigSale(c);
    await sync(c.store);
    c.store.link.down = true;
    await voidOrder(c.store.engine, await c.store.scope(), 'R-big');
    await voidOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.central.vendor.apiKey), 'R-big');
    c.store.link.down = false;
    await sync(c.store);
    for (const engine of [c.central.engine, c.store.engine]) {
      expect(await membership(engine, c.userId)).toEqual(member);
      // The sale's promotion note is no void's: only the later take-back is the repeat.
      expect((await notes(engine, c.userId)).sort()).toEqual(['Complete: Gold → Member', 'Complete: Member → Gold', 'Duplicate: Gold → Member']);
    }
  });
});

describe('a store’s tier move up that central carries further', () => {
  it('central’s own promotion comes after the store’s move, recorded and delivered: Member → Silver, then Silver → Gold', async () => {
    const receiver = keep(await startWebhookReceiver());
    const c = await chain({ url: receiver.url, allowPrivate: true });
    await sync(c.store);
    c.store.link.down = true;
    // Central sells to the member meanwhile: 19 points, still Member there.
    await placeOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.central.vendor.apiKey), { identification: 'gil@example.com', receiptNumber: 'C-1', subtotal: 19 });
    c.clock.advance(HOUR);
    // The store, offline, sells 35: Silver there (it cannot see central's 19).
    await placeOrder(c.store.engine, await c.store.scope(), { identification: 'gil@example.com', receiptNumber: 'S-1', subtotal: 35 });
    expect((await membership(c.store.engine, c.userId)).tier).toBe('Silver');
    c.clock.advance(HOUR);
    c.store.link.down = false;
    await sync(c.store);
    // Central judges the move up with its own points (54): Gold, by its own promotion.
    expect((await membership(c.central.engine, c.userId)).tier).toBe('Gold');
    // The store's move bears the time of its sale, central's promotion the time of the push.
    expect(await tierEvents(c)).toEqual(['Member → Silver', 'Silver → Gold']);
    // Each move has its note: the store's sale's, and central's own (of no one sale), which the store pulls.
    for (const engine of [c.central.engine, c.store.engine]) expect(await notes(engine, c.userId)).toEqual(['Complete: Member → Silver', 'Complete: Silver → Gold']);
    const own = await c.central.engine.db.selectFrom('transactions').select(['order_id', 'store_id']).where('user_id', '=', c.userId).where('kind', '=', 'tier_change').orderBy('occurred_at', 'desc').executeTakeFirstOrThrow();
    expect(own).toEqual({ order_id: null, store_id: null });
    await deliverDueWebhooks(c.central.engine, { allowPrivate: true });
    expect(receiver.ofType('tier.changed').map((r) => `${r.body.data.from?.name ?? '-'} → ${r.body.data.to.name}`)).toEqual(['Member → Silver', 'Silver → Gold']);
  });
});
