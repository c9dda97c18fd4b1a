import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { customerHistory } from '../../src/core/history/customer-history';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import type { PushRequest, RowChange } from '../../src/core/sync/protocol';
import type { SyncTransport } from '../../src/core/sync/store/sync-client';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { BACKENDS, type Backend } from '../support/backends';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// A store's void takes back the tier its sale got on the points the store has seen, and writes the
// note "Gold → Silver". Central judges the move on its own points (judgeStoreTierMove): when a sale
// made elsewhere holds the tier, it puts the tier back and nothing moved. The member's history must
// then say so, at central and at the store once it pulls: the store's note stays, marked Voided (as a
// voided sale's record is), and no tier.changed is raised. When central's points agree, the note
// stands. Either way whichever of the note and the membership central applies first.
// Central on an SQLite file and on PostgreSQL; the store on SQLite.

const HOUR = 3_600_000;
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

/** The order in which central receives an event's rows: as the store captured them, or the note before the membership. */
type RowOrder = 'as captured' | 'note first';

/** In an event with a tier note, the membership's rows after the others (a store whose capture ordered them so). */
function noteFirst(request: PushRequest): PushRequest {
  const hasNote = (changes: RowChange[]) => changes.some((c) => c.tbl === 'transactions' && c.data['kind'] === 'tier_change');
  return {
    ...request,
    events: request.events.map((event) =>
      hasNote(event.changes) ? { ...event, changes: [...event.changes.filter((c) => c.tbl !== 'user_vendors'), ...event.changes.filter((c) => c.tbl === 'user_vendors')] } : event,
    ),
  };
}

async function chain(backend: Backend, order: RowOrder) {
  const clock = new ManualClock();
  const database = await backend.open();
  open.push(database);
  const central: CentralHandle = await startCentral(clock, database.database);
  open.push(central);
  const vendor = { vendorId: central.vendor.vendorId };
  await createTier(central.engine, vendor, { name: 'Silver', threshold: 20, windowDays: null });
  await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
  await createWebhookEndpoint(central.engine, vendor, { url: 'https://hooks.example.com/punchcard', events: ['tier.changed'] }, { allowPrivate: false });
  const transport = (credential: string): SyncTransport => {
    const direct = central.transportFor(credential);
    return order === 'note first' ? { ...direct, push: (request) => direct.push(noteFirst(request)) } : direct;
  };
  const store: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, transport);
  open.push(store);
  const sync = async () => {
    for (let i = 0; i < 3; i += 1) await store.client.syncOnce();
  };
  await sync();
  const { session } = await registerInStore(store.engine, await store.scope(), { email: 'ivy@example.com', firstName: 'Ivy' });
  const userId = Number(session.user_id);
  clock.advance(HOUR);
  // Two sales at the store: Silver (30), then Gold (60); central has both.
  await placeOrder(store.engine, await store.scope(), { identification: 'ivy@example.com', receiptNumber: 'R-1', subtotal: 30 });
  clock.advance(HOUR);
  await placeOrder(store.engine, await store.scope(), { identification: 'ivy@example.com', receiptNumber: 'R-gold', subtotal: 30 });
  await sync();
  clock.advance(HOUR);
  expect(await tierOf(central.engine, userId)).toBe('Gold');
  return { clock, central, store, sync, userId };
}

async function tierOf(engine: Engine, userId: number): Promise<string> {
  const row = await engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select('t.name').where('uv.user_id', '=', userId).executeTakeFirstOrThrow();
  return row.name;
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

      const told = ['tier_change R-gold Voided Gold → Silver', 'void R-gold Voided', 'order R-central Complete', 'order R-gold Voided', 'order R-1 Complete'];
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

      const told = ['tier_change R-gold Complete Gold → Silver', 'void R-gold Voided', 'order R-gold Voided', 'order R-1 Complete'];
      expect.soft(await tierOf(c.central.engine, c.userId), 'tier at central').toBe('Silver');
      expect.soft(await history(c.central.engine, vendorId, c.userId), 'history at central').toEqual(told);
      expect.soft(await tierOf(c.store.engine, c.userId), 'tier at the store after pulling').toBe('Silver');
      expect.soft(await history(c.store.engine, vendorId, c.userId), 'history at the store after pulling').toEqual(told);
      expect(await tierChangedEvents(c.central.engine)).toBe(eventsBefore + 1);
    });
  });
});
