import type { Selectable } from 'kysely';
import { type CurrencyBalance, customerBalances } from '../balances/customer-balances';
import type { StoreScope } from '../credentials/authenticate';
import { loadMembership, type Membership, type TierRow } from '../customers/membership';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { Engine } from '../engine';
import type { EarningRulesTable } from '../storage/schema';
import { findOpenSession, type PosSessionRow } from './pos-session';
import { offeredRewards } from '../rewards/offered-rewards';
import type { RewardRecord } from '../rewards/list-rewards';

export type EarningRuleRow = Selectable<EarningRulesTable>;

export interface CustomerAtCounter {
  session: PosSessionRow;
  membership: Membership;
  /** One entry per ACTIVE currency (loyalty and quick pay), with upcoming expirations. */
  balances: CurrencyBalance[];
  earningRules: EarningRuleRow[];
  nextTier: TierRow | null;
  /** The customer's previous visit to the vendor (a closed session), if any. */
  lastVisit: { at: number; storeId: number; storeName: string } | null;
  /** What the customer orders most with the vendor (recent orders), most first. */
  favouriteItems: FavouriteItem[];
  /** The vendor's rewards with how many the customer can redeem now. */
  rewards: RewardRecord[];
}

export interface FavouriteItem {
  name: string;
  sku: string | null;
  quantity: number;
  orders: number;
}

/** Favourites come from the customer's last orders, so they follow changing tastes. */
const FAVOURITE_WINDOW_ORDERS = 50;
const FAVOURITE_COUNT = 5;

/** GET /onscreen?pos_session_hash: everything the counter shows about the checked-in customer. */
export async function retrieveCustomer(engine: Engine, scope: StoreScope, hash: string): Promise<CustomerAtCounter> {
  const session = await findOpenSession(engine.db, scope, hash);
  const member = { vendorId: session.vendor_id, userId: session.user_id };
  const now = engine.clock.now();
  const [membership, balances, earningRules, lastVisit, recentOrders] = await Promise.all([
    loadMembership(engine.db, session.user_id, session.vendor_id),
    customerBalances(engine, member),
    engine.db
      .selectFrom('earning_rules')
      .selectAll()
      .where('vendor_id', '=', session.vendor_id)
      .where('status', '=', 'ACTIVE')
      .where((eb) => eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', now)]))
      .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
      .orderBy('id')
      .execute(),
    engine.db
      .selectFrom('pos_sessions as s')
      .innerJoin('stores as st', 'st.id', 's.store_id')
      .select(['s.created_at', 's.store_id', 'st.name'])
      .where('s.user_id', '=', session.user_id)
      .where('s.vendor_id', '=', session.vendor_id)
      .where('s.status', '=', 'closed')
      .where('s.closed_reason', '!=', 'moved')
      .orderBy('s.created_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
    engine.db
      .selectFrom('orders')
      .select('items')
      .where('user_id', '=', session.user_id)
      .where('vendor_id', '=', session.vendor_id)
      .where('status', '=', 'complete')
      .orderBy('ordered_at', 'desc')
      .limit(FAVOURITE_WINDOW_ORDERS)
      .execute(),
  ]);
  const threshold = membership.tier?.threshold ?? -1;
  const nextTier =
    (await engine.db
      .selectFrom('tiers')
      .selectAll()
      .where('vendor_id', '=', session.vendor_id)
      .where('threshold', '>', threshold)
      .orderBy('threshold')
      .executeTakeFirst()) ?? null;
  const rewards = await offeredRewards(engine, session.vendor_id, balances);
  return {
    session,
    membership: { ...membership, user: seenAtCounter(membership.user, membership.link) },
    balances,
    rewards,
    earningRules,
    nextTier,
    lastVisit: lastVisit ? { at: lastVisit.created_at, storeId: lastVisit.store_id, storeName: lastVisit.name } : null,
    favouriteItems: favourites(recentOrders.map((o) => JSON.parse(o.items) as Array<{ name: string; quantity: number; sku: string | null }>)),
  };
}

/** Items by total quantity across orders (an item is its sku, else its name ignoring case). */
function favourites(orders: Array<Array<{ name: string; quantity: number; sku: string | null }>>): FavouriteItem[] {
  const byKey = new Map<string, FavouriteItem>();
  for (const items of orders) {
    const seen = new Set<string>();
    for (const item of items) {
      const key = item.sku ?? item.name.toLowerCase();
      const entry = byKey.get(key) ?? { name: item.name, sku: item.sku, quantity: 0, orders: 0 };
      entry.quantity += item.quantity;
      if (!seen.has(key)) entry.orders += 1;
      seen.add(key);
      byKey.set(key, entry);
    }
  }
  return [...byKey.values()].sort((a, b) => b.quantity - a.quantity || b.orders - a.orders || a.name.localeCompare(b.name)).slice(0, FAVOURITE_COUNT);
}
