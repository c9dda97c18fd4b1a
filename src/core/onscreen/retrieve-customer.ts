import type { Selectable } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { balancesIn, type CurrencyBalance } from '../balances/customer-balances';
import type { StoreScope } from '../credentials/authenticate';
import { findUserVendor, loadUser } from '../customers/customer-store';
import type { Membership, TierRow } from '../customers/membership';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { Engine } from '../engine';
import type { EarningRulesTable } from '../storage/schema';
import { findOpenSession, type PosSessionRow } from './pos-session';
import { inWindow, programData } from '../program-cache/program-data';
import { prepared } from '../storage/prepared';
import { inOneSnapshot } from '../storage/reader';
import { holderAccounts } from '../balances/balance-store';
import { rewardsIn } from '../rewards/offered-rewards';
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

const lastVisitOf = prepared((db, userId: number, vendorId: number) =>
  db
    .selectFrom('pos_sessions as s')
    .innerJoin('stores as st', 'st.id', 's.store_id')
    .select(['s.created_at', 's.store_id', 'st.name'])
    .where('s.user_id', '=', userId)
    .where('s.vendor_id', '=', vendorId)
    .where('s.status', '=', 'closed')
    .where('s.closed_reason', '!=', 'moved')
    .orderBy('s.created_at', 'desc')
    .limit(1),
);

const recentOrdersOf = prepared((db, userId: number, vendorId: number) =>
  db.selectFrom('orders').select('items').where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('status', '=', 'complete').orderBy('ordered_at', 'desc').limit(FAVOURITE_WINDOW_ORDERS),
);

/** GET /onscreen?pos_session_hash: everything the counter shows about the checked-in customer. */
export async function retrieveCustomer(engine: Engine, scope: StoreScope, hash: string): Promise<CustomerAtCounter> {
  const session = await findOpenSession(engine.db, scope, hash);
  const member = { vendorId: session.vendor_id, userId: session.user_id };
  const now = engine.clock.now();
  // The vendor's settings, currencies, rules, rewards and tiers come from memory (program-cache).
  // The reads are made together, in one read transaction of the read connection.
  const [program, user, link, lastVisit, recentOrders, accounts] = await inOneSnapshot(engine.db, () =>
    Promise.all([
      programData(engine.db, session.vendor_id),
      loadUser(engine.db, session.user_id),
      findUserVendor(engine.db, session.user_id, session.vendor_id),
      lastVisitOf(engine.db, session.user_id, session.vendor_id).then((rows) => rows[0]),
      recentOrdersOf(engine.db, session.user_id, session.vendor_id),
      holderAccounts(engine.db, session.vendor_id, 'user', session.user_id),
    ]),
  );
  if (!link) throw new ServiceError('user_not_found');
  const balances = await balancesIn(engine, program, member, accounts);
  const tier = link.tier_id === null ? null : (program.tiers.find((t) => t.id === link.tier_id) ?? null);
  const threshold = tier?.threshold ?? -1;
  const quickPay = program.currencies.find((c) => c.id === program.vendor.quick_pay_currency_id);
  const membership: Membership = { user, link, vendor: program.vendor, tier, moneyDigits: quickPay?.code ? minorUnitDigits(quickPay.code) : 2 };
  return {
    session,
    membership: { ...membership, user: seenAtCounter(user, link) },
    balances,
    rewards: rewardsIn(program, now, balances),
    earningRules: program.earningRules.filter((r) => r.status === 'ACTIVE' && inWindow(r, now)),
    nextTier: program.tiers.find((t) => t.threshold > threshold) ?? null,
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
