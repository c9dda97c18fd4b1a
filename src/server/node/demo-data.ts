import { createCard } from '../../core/cards/create-card';
import type { Engine } from '../../core/engine';
import { listVendors } from '../../core/tenancy/find-vendors';
import { setUpVendor, type VendorCredentials } from '../../core/tenancy/set-up-vendor';

const DEMO_CARDS = [
  { number: 'DEMO0001', data: { holder: 'Ana Torres', tier: 'Gold' } },
  { number: 'DEMO0002', data: { holder: 'Ben Okafor' } },
  { number: 'DEMO0003', data: { holder: 'Chloé Martin' } },
];

/**
 * Demo data for a data folder that has no vendor yet: "Demo Coffee" with its store, currencies,
 * keys and sample cards. Returns the new credentials (secrets exist only now), or null when the
 * folder already holds a vendor and is reused as is.
 */
export async function seedDemoData(engine: Engine): Promise<VendorCredentials | null> {
  if ((await listVendors(engine)).length > 0) return null;
  const made = await setUpVendor(engine, {
    name: 'Demo Coffee',
    currency: 'USD',
    country: 'US',
    store: { name: 'Demo Coffee Downtown', address1: '100 Market Street', city: 'San Francisco', region: 'US-CA', postalCode: '94105' },
  });
  for (const card of DEMO_CARDS) await createCard(engine, { vendorId: made.vendorId }, card);
  return made;
}
