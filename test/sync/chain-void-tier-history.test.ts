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

// A store's void takes back the tier its sale got on the points the store has seen, and writes the
// note "Gold → Silver". Central judges the move on its own points (judgeStoreTierMove): when a sale
// made elsewhere holds the tier, it puts the tier back and nothing moved. The member's history must
// then say so, at central and at the store once it pulls: the store's note stays, marked Voided (as a
// voided sale's record is), and no tier.changed is raised. When central's points agree, the note
// stands. Either way whichever of the note and the membership central applies first.
// Central on an SQLite file and on PostgreSQL; the store on SQLite.

const HOUR = 3_600_000;
const keep = closedAfterEach();

/** The store's sales (receipt, subtotal), in order: by default Silver (30), then Gold (60 in all). */
type Sales = ReadonlyArray<readonly [receipt: string, subtotal: number]>;

async function chain(backend: Backend, order: RowOrder, sales: Sales = [['R-1', 30], ['R-gold', 30]]) {
  const clock = new ManualClock();
  const central = await startCentralOn(backend, clock, keep);
  const vendor = { vendorId: central.vendor.vendorId };
  await createTier(central.engine, vendor, { name: 'Silver', threshold: 20, windowDays: null });
  await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
  await createWebhookEndpoint(central.engine, vendor, { url: 'https://hooks.example.com/punchcard', events: ['tier.changed'] }, { allowPrivate: false });
  const transport = (credential: string) => pushingRowsIn(order, central.transportFor(credential));
  const store: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, transport);
  keep(store);
  const sync = async () => {
    for (let i = 0; i < 3; i += 1) await store.client.syncOnce();
  };
  await sync();
  const { session } = await registerInStore(store.engine, await store.scope(), { email: 'ivy@example.com', firstName: 'Ivy' });
  const userId = Number(session.user_id);
  clock.advance(HOUR);
  // The sales at the store (by default Silver at 30, then Gold at 60); central has them all.
  for (const [receiptNumber, subtotal] of sales) {
    await placeOrder(store.engine, await store.scope(), { identification: 'ivy@example.com', receiptNumber, subtotal });
    clock.advance(HOUR);
  }
  await sync();
  clock.advance(HOUR);
  expect(await tierOf(central.engine, userId)).toBe('Gold');
  return { clock, central, store, sync, userId };
}

async function tierOf(engine: Engine, userId: number): Promise<string> {
  const row = await engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select('t.name').where('uv.user_id', '=', userId).executeTakeFirstOrThrow();
  return row.name;
}

async function tierSince(engine: Engine, userId: number): Promise<number> {
  return Number((await engine.db.selectFrom('user_vendors').select('tier_since').where('user_id', '=', userId).executeTakeFirstOrThrow()).tier_since);
}

/** The member's history as GET /user/transaction/list reads it (newest first): kind, status, receipt, tier move. */
async function history(engine: Engine, vendorId: number, userId: number): Promise<string[]> {
  const page = await customerHistory(engine, { vendorId, userId }, { limit: 100 });
  return page.items.map((record) => {
    const receipt = (record.receipts[0]?.['receipt_number'] as string | undefined) ?? '-';
    const tier = record.rewards.find((r) => r['kind'] === 'tier');
    return `${record.kind} ${receipt} ${record.status}${tier ? ` ${String(tier['from'])} → ${String(tier['to'])}` : ''}`;
  });
}

const tierChangedEvents = async (engine: Engine) => (await engine.db.selectFrom('webhook_events').select('id').where('type', '=', 'tier.changed').execute()).length;

/** The tier.changed events recorded (oldest first) as "from → to", skipping the first `skip`. */
async function tierMoves(engine: Engine, skip: number): Promise<string[]> {
  const events = await engine.db.selectFrom('webhook_events').select(['data']).where('type', '=', 'tier.changed').orderBy('recorded_at').orderBy('created_at').execute();
  return events.slice(skip).map((event) => {
    const data = JSON.parse(event.data) as { from: { name: string } | null; to: { name: string } | null };
    return `${data.from?.name ?? '-'} → ${data.to?.name ?? '-'}`;
  });
}

/** The member's inbox messages of a tier reached ("You reached Silver"), by their text. */
async function tierMessages(engine: Engine, userId: number): Promise<string[]> {
  const rows = await engine.db.selectFrom('inbox_messages').select(['title', 'body']).where('user_id', '=', userId).where('kind', '=', 'tier').orderBy('id').execute();
  return rows.map((row) => `${row.title}: ${row.body}`);
}

describe.each(BACKENDS)('the history of a tier a store’s void took back (central on $name)', (backend) => {
  describe.each<RowOrder>(['as captured', 'note first'])('central applying the rows %s', (order) => {
    it('central puts the tier back (a sale made elsewhere holds it): the store’s note is kept as Voided, at central and at the store', async () => {
      const c = await chain(backend, order);
      const vendorId = c.central.vendor.vendorId;
      // A sale at central the store has not pulled: 90 points stand at central without R-gold.
      await placeOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.central.vendor.apiKey), { identification: 'ivy@example.com', receiptNumber: 'R-central', subtotal: 60 });
      c.clock.advance(HOUR);
      const eventsBefore = await tierChangedEvents(c.central.engine);
      // The store, on the 30 points it sees, takes Gold back to Silver.
      await voidOrder(c.store.engine, await c.store.scope(), 'R-gold');
      expect(await tierOf(c.store.engine, c.userId)).toBe('Silver');
      await c.sync();

      // The sales' own notes of their promotions stand: only the void's move is undone.
      const told = [
        'tier_change R-gold Voided Gold → Silver',
        'void R-gold Voided',
        'order R-central Complete',
        'order R-gold Voided',
        'tier_change R-gold Complete Silver → Gold',
        'order R-1 Complete',
        'tier_change R-1 Complete Member → Silver',
      ];
      expect.soft(await tierOf(c.central.engine, c.userId), 'tier at central').toBe('Gold');
      expect.soft(await history(c.central.engine, vendorId, c.userId), 'history at central').toEqual(told);
      expect.soft(await tierOf(c.store.engine, c.userId), 'tier at the store after pulling').toBe('Gold');
      expect.soft(await history(c.store.engine, vendorId, c.userId), 'history at the store after pulling').toEqual(told);
      // Nothing moved at central: no tier.changed for the put-back.
      expect(await tierChangedEvents(c.central.engine)).toBe(eventsBefore);
    });

    it('central agrees (no sale elsewhere): the store’s note stands, Complete', async () => {
      const c = await chain(backend, order);
      const vendorId = c.central.vendor.vendorId;
      const eventsBefore = await tierChangedEvents(c.central.engine);
      await voidOrder(c.store.engine, await c.store.scope(), 'R-gold');
      await c.sync();

      const told = [
        'tier_change R-gold Complete Gold → Silver',
        'void R-gold Voided',
        'order R-gold Voided',
        'tier_change R-gold Complete Silver → Gold',
        'order R-1 Complete',
        'tier_change R-1 Complete Member → Silver',
      ];
      expect.soft(await tierOf(c.central.engine, c.userId), 'tier at central').toBe('Silver');
      expect.soft(await history(c.central.engine, vendorId, c.userId), 'history at central').toEqual(told);
      expect.soft(await tierOf(c.store.engine, c.userId), 'tier at the store after pulling').toBe('Silver');
      expect.soft(await history(c.store.engine, vendorId, c.userId), 'history at the store after pulling').toEqual(told);
      expect(await tierChangedEvents(c.central.engine)).toBe(eventsBefore + 1);
    });
  });

  describe.each<RowOrder>(['as captured', 'note first'])('central applying the rows %s', (order) => {
    it('central holds less than the tier but more than the store moved to: one tier.changed Gold → Silver, no announcement, and the note says Gold → Silver', async () => {
      // One sale at the store gets Gold straight from the entry tier (60 ≥ 50).
      const c = await chain(backend, order, [['R-gold', 60]]);
      const vendorId = c.central.vendor.vendorId;
      // A sale at central the store has not pulled: 25 points stand at central without R-gold, Silver's (20) but not Gold's (50).
      await placeOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.central.vendor.apiKey), { identification: 'ivy@example.com', receiptNumber: 'R-central', subtotal: 25 });
      expect(await tierOf(c.central.engine, c.userId)).toBe('Gold');
      const goldSince = await tierSince(c.central.engine, c.userId);
      c.clock.advance(HOUR);
      const eventsBefore = await tierChangedEvents(c.central.engine);
      const messagesBefore = await tierMessages(c.central.engine, c.userId);
      // The store, on the 0 points it sees, takes Gold back to the entry tier.
      await voidOrder(c.store.engine, await c.store.scope(), 'R-gold');
      expect(await tierOf(c.store.engine, c.userId)).toBe('Member');
      await c.sync();

      const told = ['tier_change R-gold Complete Gold → Silver', 'void R-gold Voided', 'order R-central Complete', 'order R-gold Voided', 'tier_change R-gold Complete Member → Gold'];
      expect.soft(await tierOf(c.central.engine, c.userId), 'tier at central').toBe('Silver');
      expect.soft(await history(c.central.engine, vendorId, c.userId), 'history at central').toEqual(told);
      expect.soft(await tierOf(c.store.engine, c.userId), 'tier at the store after pulling').toBe('Silver');
      expect.soft(await history(c.store.engine, vendorId, c.userId), 'history at the store after pulling').toEqual(told);
      // A tier between the two keeps the promotion's tier_since (as takeBackTier's does), at both nodes.
      expect.soft(await tierSince(c.central.engine, c.userId), 'tier_since at central').toBe(goldSince);
      expect.soft(await tierSince(c.store.engine, c.userId), 'tier_since at the store').toBe(goldSince);
      // A move down, told once, from the tier central held to the one it ends with.
      expect.soft(await tierMoves(c.central.engine, eventsBefore), 'tier.changed at central').toEqual(['Gold → Silver']);
      // A move down congratulates nobody (takeBackTier and the demotion job announce nothing).
      expect(await tierMessages(c.central.engine, c.userId), 'tier messages at central').toEqual(messagesBefore);
    });
  });
});
