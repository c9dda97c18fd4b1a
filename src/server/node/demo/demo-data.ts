import { sql } from 'kysely';
import { createCard } from '../../../core/cards/create-card';
import type { StoreScope } from '../../../core/credentials/authenticate';
import type { Engine } from '../../../core/engine';
import { checkIn } from '../../../core/onscreen/check-in';
import { findCounterStore } from '../../../core/stores/find-counter-store';
import { listVendors } from '../../../core/tenancy/find-vendors';
import { setUpVendor, type VendorCredentials } from '../../../core/tenancy/set-up-vendor';
import { seedDemoCustomers } from './demo-customers';
import { CHECKED_IN_AT_START, DEMO_PEOPLE, UNLINKED_DEMO_CARDS } from './demo-people';
import { DEMO_PROGRAM_NAME, markDemoProgram, startDemoSeed } from './demo-folder';
import { buildDemoProgram, DEMO_TIME_ZONE } from './demo-program';

/**
 * Demo data for a data folder that has no vendor yet: "Demo Coffee" with two stores, its program
 * (rules, rewards, tiers, expiry), fifty customers with weeks of history, and loyalty cards nobody
 * has linked yet. Returns the new credentials (secrets exist only now), or null when the folder
 * already holds a vendor and is reused as is.
 */
export async function seedDemoData(engine: Engine): Promise<VendorCredentials | null> {
  if ((await listVendors(engine)).length > 0) return null;
  await startDemoSeed(engine.db);
  const made = await setUpVendor(engine, {
    name: DEMO_PROGRAM_NAME,
    currency: 'USD',
    country: 'US',
    store: { name: 'Demo Coffee Downtown', address1: '100 Market Street', city: 'San Francisco', region: 'US-CA', postalCode: '94105' },
  });
  // Where the store is and its day: found by "stores near me", counted in Pacific days.
  await engine.db.updateTable('stores').set({ latitude: 37.7936, longitude: -122.3966, time_zone: DEMO_TIME_ZONE }).where('id', '=', made.storeId).execute();
  await withoutSyncWrites(engine, async () => {
    const program = await buildDemoProgram(engine, made);
    await seedDemoCustomers(engine, made.vendorId, program);
    for (const number of UNLINKED_DEMO_CARDS) await createCard(engine, { vendorId: made.vendorId }, { number, data: { program: 'Demo Coffee loyalty card' } });
  });
  await markDemoProgram(engine.db, made.vendorId);
  return made;
}

/**
 * Weeks of history are about a thousand small transactions: with SQLite's synchronous=FULL each
 * waits for the disk (a minute on a slow one). Demo data is disposable (a crash mid-seed: delete
 * the folder), so it is written without waiting, and FULL is back before any real sale.
 */
async function withoutSyncWrites(engine: Engine, work: () => Promise<void>): Promise<void> {
  if (engine.dialect !== 'sqlite') return work();
  await sql`pragma synchronous = OFF`.execute(engine.db);
  try {
    await work();
  } finally {
    await sql`pragma synchronous = FULL`.execute(engine.db);
  }
}

/**
 * Checks the demo's first few customers in at the screens' store, so the queue is alive when the
 * demo starts (a customer already checked in stays in the queue once).
 */
export async function checkInDemoQueue(engine: Engine): Promise<void> {
  const store = await findCounterStore(engine);
  if (!store) return;
  const scope: StoreScope = { vendorId: store.vendorId, storeId: store.storeId, posId: store.posId, apiKeyId: 0, role: 'cashier', errorMode: 'http', workstationIdentifier: null };
  for (const card of CHECKED_IN_AT_START) {
    // A demo folder someone has changed (card unlinked, customer erased) still starts.
    await checkIn(engine, scope, { identification: card }).catch(() => undefined);
  }
}

const person = (card: string) => DEMO_PEOPLE.find((p) => p.card === card)!;

/** What the start-up message suggests typing at the counter or the kiosk. */
export function demoIdentifications(): string[] {
  const ana = person('DEMO0001');
  const chloe = person('DEMO0003');
  const daniel = person('DEMO0004');
  return [
    `card ${ana.card}  (${ana.firstName} ${ana.lastName}: Gold, quick pay with auto reload)`,
    `phone ${daniel.phone}  (${daniel.firstName} ${daniel.lastName})`,
    `email ${chloe.email}  (${chloe.firstName} ${chloe.lastName})`,
    `card ${UNLINKED_DEMO_CARDS[0]}  (a new card nobody has linked: register a customer with it)`,
  ];
}
