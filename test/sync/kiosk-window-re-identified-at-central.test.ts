import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { checkInFromApp } from '../../src/core/onscreen/app-check-in';
import { checkIn } from '../../src/core/onscreen/check-in';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { retrieveCustomer } from '../../src/core/onscreen/retrieve-customer';
import { listQueue } from '../../src/core/onscreen/queue';
import { ManualClock } from '../support/clock';
import { closedAfterEach, pairFirstStore, startCentral } from './support/chain';

// A kiosk key reads a session only while a kiosk's identification is the last one (kiosk-view.ts).
// On a paired store the app's check-in is made at central and reaches the store by pull; the
// column is the store's own (not synced), so a pulled version written after the kiosk's
// identification — someone else touched the session — clears it (clearedWhenTouched), while the
// store's own versions coming back from central, even an older one first, keep it.

const keep = closedAfterEach();

describe('a kiosk key on a paired store', () => {
  it('no longer reads the session once the app re-identified the customer at central (as when the app checks in at the store itself)', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    keep(central);
    const { store } = await pairFirstStore(central, clock);
    keep(store);
    const registered = await registerInStore(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { email: 'ana@r1-kiosk.test' });
    const ana = { sessionId: 0, userId: Number(registered.session.user_id), vendorId: central.vendor.vendorId };
    // (Ana's session, opened at central by the counter, reaches the store)
    await store.client.syncOnce();

    const kiosk = await authenticateApiKey(store.engine, central.vendor.kioskApiKey);
    const greeted = await checkIn(store.engine, kiosk, { identification: 'ana@r1-kiosk.test' });
    const hash = greeted.session.hash;
    expect((await retrieveCustomer(store.engine, kiosk, hash)).session.hash).toBe(hash);
    // its own change, back from central with the time it wrote: still the kiosk's
    await store.client.syncOnce();
    await store.client.syncOnce();
    expect((await listQueue(store.engine, kiosk)).map((e) => e.hash)).toContain(hash);

    // The app checks Ana in at the store through central: the same session, identified by the app.
    clock.advance(1_000);
    const fromApp = await checkInFromApp(central.engine, ana, { storeId: central.vendor.storeId });
    expect(fromApp.hash).toBe(hash);
    await store.client.syncOnce();
    const atStore = await store.engine.db.selectFrom('pos_sessions').select(['identified_by', 'kiosk_identified_at']).where('hash', '=', hash).executeTakeFirstOrThrow();
    expect(atStore.identified_by).toBe('app');

    // Still within 2 minutes of the kiosk's identification, but the app's is the last one.
    expect((await listQueue(store.engine, kiosk)).map((e) => e.hash)).not.toContain(hash);
    await expect(retrieveCustomer(store.engine, kiosk, hash)).rejects.toMatchObject({ code: 'session_not_found' });
  });

  it('keeps reading after two of the store’s own writes between pulls (its own versions come back, oldest first)', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    keep(central);
    const { store } = await pairFirstStore(central, clock);
    keep(store);
    await createWebhookEndpoint(central.engine, { vendorId: central.vendor.vendorId }, { url: 'https://hooks.example.com/punchcard', events: ['check_in.opened', 'check_in.closed'] }, { allowPrivate: false });
    await registerInStore(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { email: 'ana@r2-kiosk.test' });
    await store.client.syncOnce();

    const kiosk = await authenticateApiKey(store.engine, central.vendor.kioskApiKey);
    await checkIn(store.engine, kiosk, { identification: 'ana@r2-kiosk.test' });
    clock.advance(1_000);
    const again = await checkIn(store.engine, kiosk, { identification: 'ana@r2-kiosk.test' });
    const hash = again.session.hash;
    expect((await listQueue(store.engine, kiosk)).map((e) => e.hash)).toContain(hash);

    await store.client.syncOnce();
    const atStore = await store.engine.db.selectFrom('pos_sessions').select(['updated_at', 'kiosk_identified_at']).where('hash', '=', hash).executeTakeFirstOrThrow();
    expect(atStore).toEqual({ updated_at: clock.now(), kiosk_identified_at: clock.now() });
    expect((await listQueue(store.engine, kiosk)).map((e) => e.hash)).toContain(hash);
    expect((await retrieveCustomer(store.engine, kiosk, hash)).session.hash).toBe(hash);
  });
});
