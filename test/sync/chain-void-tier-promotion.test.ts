import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { customerHistory } from '../../src/core/history/customer-history';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { BACKENDS, type Backend } from '../support/backends';
import { ManualClock } from '../support/clock';
import { closedAfterEach, pairStore, startCentralOn, type StoreHandle } from './support/chain';
import { pushingRowsIn, type RowOrder } from './support/note-first';

// A sale that promotes writes its own `tier_change` note of the order (promoteTier), beside the
// take-back note its void writes (takeBackTier). At central neither may pass for the other: a void's
// note of an order is a repeat only of another void's note of it (repeated-void.ts), and a tier move
// central puts back voids the void's note only, even when the sale and its void bear one instant
// (store-change-effects.ts). Central on an SQLite file and on PostgreSQL; the store on SQLite.

const HOUR = 3_600_000;
const keep = closedAfterEach();

/** Central with Silver (20) and Gold (50), neither with a window, tier.changed wanted; one store and a member registered there. */
async function chain(backend: Backend, order: RowOrder) {
  const clock = new ManualClock();
  const central = await startCentralOn(backend, clock, keep);
  const vendor = { vendorId: central.vendor.vendorId };
  await createTier(central.engine, vendor, { name: 'Silver', threshold: 20, windowDays: null });
  await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
  await createWebhookEndpoint(central.engine, vendor, { url: 'https://hooks.example.com/punchcard', events: ['tier.changed'] }, { allowPrivate: false });
  const transport = (credential: string) => pushingRowsIn(order, central.transportFor(credential));
  const store: StoreHandle = keep(await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, transport));
  const sync = async () => {
    for (let i = 0; i < 3; i += 1) await store.client.syncOnce();
  };
  await sync();
  const { session } = await registerInStore(store.engine, await store.scope(), { email: 'pia@example.com', firstName: 'Pia' });
  clock.advance(HOUR);
  const sell = async (engine: Engine, receiptNumber: string, subtotal: number) => {
    const scope = engine === store.engine ? await store.scope() : await authenticateApiKey(central.engine, central.vendor.apiKey);
    await placeOrder(engine, scope, { identification: 'pia@example.com', receiptNumber, subtotal });
  };
  return { clock, central, store, sync, sell, vendorId: vendor.vendorId, userId: Number(session.user_id) };
}

/** The member's history as GET /user/transaction/list reads it (newest first): kind, receipt, status, tier move. */
async function history(engine: Engine, vendorId: number, userId: number): Promise<string[]> {
  const page = await customerHistory(engine, { vendorId, userId }, { limit: 100 });
  return page.items.map((record) => {
    const receipt = (record.receipts[0]?.['receipt_number'] as string | undefined) ?? '-';
    const tier = record.rewards.find((r) => r['kind'] === 'tier');
    return `${record.kind} ${receipt} ${record.status}${tier ? ` ${String(tier['name'])}` : ''}`;
  });
}

async function tierOf(engine: Engine, userId: number): Promise<string> {
  return (await engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select('t.name').where('uv.user_id', '=', userId).executeTakeFirstOrThrow()).name;
}

/** The tier.changed events central recorded, as "from → to", oldest first. */
async function tierMoves(engine: Engine): Promise<string[]> {
  const events = await engine.db.selectFrom('webhook_events').select('data').where('type', '=', 'tier.changed').orderBy('created_at').orderBy('id').execute();
  return events.map((e) => {
    const data = JSON.parse(e.data) as { from: { name: string } | null; to: { name: string } };
    return `${data.from?.name ?? '-'} → ${data.to.name}`;
  });
}

describe.each(BACKENDS)('a promoting sale voided at a store (central on $name)', (backend) => {
  describe.each<RowOrder>(['as captured', 'note first'])('central applying the rows %s', (order) => {
    it('central’s history holds the sale’s promotion and the void’s take-back, neither a Duplicate; one tier.changed per move', async () => {
      const c = await chain(backend, order);
      await c.sell(c.store.engine, 'R-gold', 60);
      c.clock.advance(HOUR);
      await c.sync();
      c.clock.advance(HOUR);
      await voidOrder(c.store.engine, await c.store.scope(), 'R-gold');
      await c.sync();

      const told = ['tier_change R-gold Complete Gold → Member', 'void R-gold Voided', 'order R-gold Voided', 'tier_change R-gold Complete Member → Gold'];
      expect.soft(await history(c.central.engine, c.vendorId, c.userId), 'history at central').toEqual(told);
      expect.soft(await history(c.store.engine, c.vendorId, c.userId), 'history at the store after pulling').toEqual(told);
      expect.soft(await tierOf(c.central.engine, c.userId)).toBe('Member');
      // The promotion's note raises no event of its own: the membership's move raised it.
      expect(await tierMoves(c.central.engine)).toEqual(['Member → Gold', 'Gold → Member']);
    });

    it('sold and voided in one instant while central’s own sale holds the tier: central voids the take-back note only, the promotion’s stands', async () => {
      const c = await chain(backend, order);
      await c.sell(c.store.engine, 'R-1', 30);
      c.clock.advance(HOUR);
      await c.sync();
      c.clock.advance(HOUR);
      // Central's sale, which the store has not pulled: 55 points there, Gold.
      await c.sell(c.central.engine, 'R-central', 25);
      expect(await tierOf(c.central.engine, c.userId)).toBe('Gold');
      c.clock.advance(HOUR);
      const movesBefore = await tierMoves(c.central.engine);
      // At the store, with the clock held still: promoted to Gold by R-gold, which is voided at once.
      await c.sell(c.store.engine, 'R-gold', 30);
      await voidOrder(c.store.engine, await c.store.scope(), 'R-gold');
      expect(await tierOf(c.store.engine, c.userId)).toBe('Silver');
      await c.sync();

      // Central's points (R-1 and R-central) hold Gold: the void's move is put back, its note Voided.
      const told = [
        'tier_change R-gold Voided Gold → Silver',
        'void R-gold Voided',
        'order R-gold Voided',
        'tier_change R-gold Complete Silver → Gold',
        'order R-central Complete',
        'tier_change R-central Complete Silver → Gold',
        'order R-1 Complete',
        'tier_change R-1 Complete Member → Silver',
      ];
      expect.soft(await tierOf(c.central.engine, c.userId), 'tier at central').toBe('Gold');
      expect.soft(await history(c.central.engine, c.vendorId, c.userId), 'history at central').toEqual(told);
      expect.soft(await tierOf(c.store.engine, c.userId), 'tier at the store after pulling').toBe('Gold');
      expect.soft(await history(c.store.engine, c.vendorId, c.userId), 'history at the store after pulling').toEqual(told);
      // Nothing moved at central.
      expect(await tierMoves(c.central.engine)).toEqual(movesBefore);
    });
  });
});
