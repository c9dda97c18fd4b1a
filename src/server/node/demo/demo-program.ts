import type { Engine } from '../../../core/engine';
import { createEarningRule } from '../../../core/rules/earning/create-earning-rule';
import { updateProgramSettings } from '../../../core/rules/settings/update-program-settings';
import { createSpendingRule } from '../../../core/rules/spending/create-spending-rule';
import { createTier } from '../../../core/rules/tiers/create-tier';
import { nextObjectId } from '../../../core/storage/ids';
import type { VendorCredentials } from '../../../core/tenancy/set-up-vendor';

/** The demo's stores are in San Francisco: their days (dashboard, opening hours) are Pacific days. */
export const DEMO_TIME_ZONE = 'America/Los_Angeles';

export interface DemoProgram {
  /** Both stores with their point of sale: the first is where the demo's screens sit. */
  stores: Array<{ storeId: number; posId: number }>;
  /** Rewards by name → rwd_ id. */
  rewards: Record<string, string>;
}

export const DEMO_POINTS_EXPIRY_DAYS = 90;
export const GOLD_THRESHOLD = 200;

/**
 * The program around the vendor setUpVendor made: a second store, a bonus earning rule next to the
 * 1 point per dollar one, four rewards at different costs, a Gold tier above Member (points earned
 * in the last 90 days), points that expire 90 days after they are earned, and 50 points per referral.
 */
export async function buildDemoProgram(engine: Engine, made: VendorCredentials): Promise<DemoProgram> {
  const scope = { vendorId: made.vendorId };
  const points = await engine.db.selectFrom('currencies').select('public_id').where('id', '=', made.loyaltyCurrencyId).executeTakeFirstOrThrow();
  const currency = points.public_id;

  await createEarningRule(engine, scope, { name: 'Bonus: 10 points for every $20', currency, points: 10, perAmount: 20 });
  const rewards: Record<string, string> = {};
  for (const [name, cost, summary] of [
    ['Free espresso', 50, 'Any single or double espresso.'],
    ['Pastry of the day', 80, 'Whatever came out of the oven this morning.'],
    ['Free latte', 120, 'Any size, any milk.'],
    ['Bag of house beans', 400, '340 g, whole bean or ground to order.'],
  ] as const) {
    rewards[name] = (await createSpendingRule(engine, scope, { name, cost, currency, summary })).publicId;
  }
  await createTier(engine, scope, {
    name: 'Gold',
    threshold: GOLD_THRESHOLD,
    windowDays: 90,
    summary: `Earn ${GOLD_THRESHOLD} points in 90 days.`,
    description: 'Gold members get a free size upgrade and early access to new beans.',
  });
  await updateProgramSettings(engine, scope, { pointsExpiryDays: DEMO_POINTS_EXPIRY_DAYS, referralPoints: 50 });

  const second = await addStore(engine, made.vendorId);
  return { stores: [{ storeId: made.storeId, posId: made.posId }, second], rewards };
}

async function addStore(engine: Engine, vendorId: number): Promise<{ storeId: number; posId: number }> {
  const now = engine.clock.now();
  const storeId = await nextObjectId(engine.db, engine.nodeId);
  await engine.db
    .insertInto('stores')
    .values({
      id: storeId,
      vendor_id: vendorId,
      name: 'Demo Coffee Mission',
      address1: '2400 Mission Street',
      address2: null,
      city: 'San Francisco',
      region: 'US-CA',
      country: 'US',
      postal_code: '94110',
      phone: null,
      latitude: 37.7577,
      longitude: -122.4187,
      time_zone: DEMO_TIME_ZONE,
      hours: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const posId = await nextObjectId(engine.db, engine.nodeId);
  await engine.db.insertInto('points_of_sale').values({ id: posId, vendor_id: vendorId, store_id: storeId, name: 'Counter 1', status: 'ACTIVE', created_at: now, updated_at: now }).execute();
  return { storeId, posId };
}
