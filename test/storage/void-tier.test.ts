import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, type StoreScope } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { updateTier } from '../../src/core/rules/tiers/update-tier';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// A void takes back the tier its sale got, in the void's transaction (orders/tier-progress.ts,
// takeBackTier), on both databases. On PostgreSQL two voids of one member's sales run truly at once:
// the second judges the tier after the first's move, so both together leave what neither sale got.

describe.each(BACKENDS)('a void takes back the tier its sale got, on $name', (backend) => {
  const clock = new ManualClock();
  let engine: Engine;
  let close: () => Promise<void>;
  let vendor: VendorCredentials;
  let scope: StoreScope;
  let customers = 0;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
    vendor = await setUpVendor(engine, testVendor('Tier Voids'));
    scope = await authenticateApiKey(engine, vendor.apiKey);
    await createTier(engine, { vendorId: vendor.vendorId }, { name: 'Silver', threshold: 20, windowDays: 30 });
    await createTier(engine, { vendorId: vendor.vendorId }, { name: 'Gold', threshold: 50, windowDays: null });
  });
  afterAll(() => close?.());

  async function newMember(): Promise<{ email: string; userId: number }> {
    const email = `tv${++customers}@example.com`;
    const { session } = await registerInStore(engine, scope, { email });
    return { email, userId: Number(session.user_id) };
  }
  const sell = (email: string, receiptNumber: string, subtotal: number) => placeOrder(engine, scope, { identification: email, receiptNumber, subtotal });
  async function tierOf(userId: number): Promise<string> {
    const row = await engine.db
      .selectFrom('user_vendors as uv')
      .innerJoin('tiers as t', 't.id', 'uv.tier_id')
      .select('t.name')
      .where('uv.user_id', '=', userId)
      .where('uv.vendor_id', '=', vendor.vendorId)
      .executeTakeFirstOrThrow();
    return row.name;
  }
  const notes = async (userId: number) =>
    (await engine.db.selectFrom('transactions').select(['rewards', 'order_id']).where('user_id', '=', userId).where('kind', '=', 'tier_change').orderBy('id').execute()).map((r) => ({
      order: Number(r.order_id),
      change: (JSON.parse(r.rewards) as Array<{ name: string }>)[0]!.name,
    }));

  it('moves the member back with a history record naming the order', async () => {
    const { email, userId } = await newMember();
    const since = (await engine.db.selectFrom('user_vendors').select('tier_since').where('user_id', '=', userId).executeTakeFirstOrThrow()).tier_since;
    clock.advance(60_000);
    const big = await sell(email, 'TV-1', 75);
    expect(await tierOf(userId)).toBe('Gold');
    clock.advance(60_000);
    await voidOrder(engine, scope, 'TV-1');
    expect(await tierOf(userId)).toBe('Member');
    const row = await engine.db.selectFrom('user_vendors').select('tier_since').where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(Number(row.tier_since)).toBe(Number(since));
    // The sale's note of its promotion, then the void's of the take-back, both of the order.
    expect(await notes(userId)).toEqual([
      { order: big.orderId, change: 'Member → Gold' },
      { order: big.orderId, change: 'Gold → Member' },
    ]);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('a member with no tier: a sale places them in the entry tier at least (whatever its threshold), and its void leaves them there', async () => {
    const other = await setUpVendor(engine, testVendor('No Tier Voids'));
    const otherScope = await authenticateApiKey(engine, other.apiKey);
    const entry = await engine.db.selectFrom('tiers').select(['id', 'public_id']).where('vendor_id', '=', other.vendorId).executeTakeFirstOrThrow();
    await updateTier(engine, { vendorId: other.vendorId }, entry.public_id!, { threshold: 10 });
    const { session } = await registerInStore(engine, otherScope, { email: 'nt@example.com' });
    const userId = Number(session.user_id);
    await engine.db.updateTable('user_vendors').set({ tier_id: null }).where('user_id', '=', userId).execute();
    await placeOrder(engine, otherScope, { identification: 'nt@example.com', receiptNumber: 'NT-1', subtotal: 5 });
    const tierId = async () => (await engine.db.selectFrom('user_vendors').select('tier_id').where('user_id', '=', userId).executeTakeFirstOrThrow()).tier_id;
    expect(Number(await tierId())).toBe(Number(entry.id));
    clock.advance(60_000);
    await voidOrder(engine, otherScope, 'NT-1');
    expect(Number(await tierId())).toBe(Number(entry.id));
  });

  it('two voids of one member’s sales at once leave what neither sale got', async () => {
    const { email, userId } = await newMember();
    await sell(email, 'TV-2', 25);
    await sell(email, 'TV-3', 30);
    expect(await tierOf(userId)).toBe('Gold');
    await Promise.all([voidOrder(engine, scope, 'TV-2'), voidOrder(engine, scope, 'TV-3')]);
    expect(await tierOf(userId)).toBe('Member');
    const [promotions, takeBacks] = [(await notes(userId)).slice(0, 2), (await notes(userId)).slice(2)];
    expect(promotions.map((n) => n.change)).toEqual(['Member → Silver', 'Silver → Gold']);
    const changes = takeBacks.map((n) => n.change);
    expect(changes.at(-1)).toMatch(/→ Member$/);
    expect(changes[0]).toMatch(/^Gold → /);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});
