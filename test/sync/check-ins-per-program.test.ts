import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { checkIn } from '../../src/core/onscreen/check-in';
import { closeSession } from '../../src/core/onscreen/close-session';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// One open check-in per customer in the chain means per program: a store's check-in pushed to a
// central serving several programs closes the customer's check-ins of its own vendor only. A
// customer's account is shared between programs; another program's queue is not the store's to move.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const sync = async (store: StoreHandle) => {
  for (let round = 0; round < 2; round += 1) await store.client.syncOnce();
};

async function chainWithAnotherProgram(): Promise<{ central: CentralHandle; store: StoreHandle; otherApiKey: string }> {
  const clock = new ManualClock();
  const central = await startCentral(clock);
  open.push(central);
  const other = await setUpVendor(central.engine, { name: 'Elsewhere', currency: 'USD', country: 'US', store: { name: 'Far', address1: '9 Far', city: 'Springfield' } });
  const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => central.transportFor(credential));
  open.push(store);
  return { central, store, otherApiKey: other.apiKey };
}

describe("a store's check-in at central leaves the customer's check-ins in other programs open", () => {
  // Webhooks wanting check-ins send a push's check-ins through the per-event path; without, a run of them goes in bulk.
  for (const path of ['bulk', 'per-event'] as const) {
    it(`applied ${path}`, async () => {
      const { central, store, otherApiKey } = await chainWithAnotherProgram();
      if (path === 'per-event') {
        await createWebhookEndpoint(central.engine, { vendorId: central.vendor.vendorId }, { url: 'https://hooks.example.com/punchcard', events: ['check_in.opened', 'check_in.closed'] }, { allowPrivate: false });
      }
      const email = `two.programs.${path}@example.com`;
      const { session: first } = await registerInStore(store.engine, await store.scope(), { email });
      await closeSession(store.engine, await store.scope(), first.hash);
      await sync(store);

      // The customer checks in at the other program (on central), then at the chain's store.
      const elsewhere = await checkIn(central.engine, await authenticateApiKey(central.engine, otherApiKey), { identification: email });
      const here = await checkIn(store.engine, await store.scope(), { identification: email });
      await sync(store);

      const atCentral = (id: number) => central.engine.db.selectFrom('pos_sessions').select(['status', 'closed_reason']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(await atCentral(here.session.id)).toEqual({ status: 'active', closed_reason: null });
      expect(await atCentral(elsewhere.session.id)).toEqual({ status: 'active', closed_reason: null });
    });
  }
});
