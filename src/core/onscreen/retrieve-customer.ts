import type { Kysely, Selectable } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { balancesIn, type CurrencyBalance } from '../balances/customer-balances';
import type { StoreScope } from '../credentials/authenticate';
import type { UserRow, UserVendorRow, VendorRow } from '../customers/customer-store';
import type { TierRow } from '../customers/membership';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { Engine } from '../engine';
import type { DB, EarningRulesTable } from '../storage/schema';
import type { PosSessionRow } from './pos-session';
import { customerSeenBy, mayReadSession } from './kiosk-view';
import { inWindow, programData } from '../program-cache/program-data';
import { prepared } from '../storage/prepared';
import { inOneSnapshot } from '../storage/reader';
import { holderAccounts } from '../balances/balance-store';
import { rewardsIn } from '../rewards/offered-rewards';
import { tierCurrencyIn } from '../rules/tiers/tier-currency';
import type { RewardRecord } from '../rewards/list-rewards';

export type EarningRuleRow = Selectable<EarningRulesTable>;

/** The columns the counter shows of the session, the person and their membership. */
export type CounterSession = Pick<PosSessionRow, 'id' | 'hash' | 'status' | 'card_number' | 'vendor_id' | 'user_id'>;
export type CounterUser = Pick<UserRow, 'id' | 'first_name' | 'last_name' | 'email' | 'phone' | 'birthdate' | 'email_verified_at' | 'phone_verified_at'>;
export type CounterLink = Pick<
  UserVendorRow,
  'user_id' | 'vendor_id' | 'language' | 'contact_consent' | 'created_at' | 'flagged' | 'tier_id' | 'reload_amount' | 'reload_threshold' | 'billing_profile_id' | 'counter_enrolled'
>;

export interface CounterMembership {
  user: CounterUser;
  link: CounterLink;
  vendor: VendorRow;
  tier: TierRow | null;
  /** Digits of the vendor's quick-pay currency (reload amounts are stored in its minor units). */
  moneyDigits: number;
}

export interface CustomerAtCounter {
  session: CounterSession;
  membership: CounterMembership;
  /** One entry per ACTIVE currency (loyalty and quick pay), with upcoming expirations. */
  balances: CurrencyBalance[];
  earningRules: EarningRuleRow[];
  nextTier: TierRow | null;
  /** What tiers count (rules/tiers/tier-currency.ts): a program with several loyalty currencies names it at the counter. */
  tierCurrency: { id: number; name: string } | null;
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

/**
 * The open session at this store with its customer and their current membership, in one read
 * (issue 13: one statement instead of three, and only the columns shown). The customer is joined
 * as loadUser reads them (not deleted), the membership as findUserVendor does (the current one).
 */
const sessionAtCounter = prepared((db, hash: string, vendorId: number, storeId: number) =>
  db
    .selectFrom('pos_sessions as s')
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 's.user_id').on('u.status', '!=', 'deleted'))
    .leftJoin('user_vendors as uv', (join) => join.onRef('uv.user_id', '=', 's.user_id').onRef('uv.vendor_id', '=', 's.vendor_id').on('uv.removed_at', 'is', null))
    .select(['s.id', 's.hash', 's.status', 's.card_number', 's.vendor_id', 's.user_id', 's.kiosk_identified_at'])
    .select(['u.id as u_id', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 'u.birthdate', 'u.email_verified_at', 'u.phone_verified_at'])
    .select(['uv.id as uv_id', 'uv.language', 'uv.contact_consent', 'uv.created_at as uv_created_at', 'uv.flagged', 'uv.tier_id', 'uv.reload_amount', 'uv.reload_threshold', 'uv.billing_profile_id', 'uv.counter_enrolled'])
    .where('s.hash', '=', hash)
    .where('s.vendor_id', '=', vendorId)
    .where('s.store_id', '=', storeId)
    .where('s.status', '=', 'active'),
);

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

/** The customer's last orders, newest first (read through orders_user_time: migration 0022). */
export const recentOrdersQuery = (db: Kysely<DB>, userId: number, vendorId: number) =>
  db.selectFrom('orders').select('items').where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('status', '=', 'complete').orderBy('ordered_at', 'desc').limit(FAVOURITE_WINDOW_ORDERS);
const recentOrdersOf = prepared(recentOrdersQuery);

/** GET /onscreen?pos_session_hash: everything the counter shows about the checked-in customer (a kiosk less: kiosk-view). */
export async function retrieveCustomer(engine: Engine, scope: StoreScope, hash: string): Promise<CustomerAtCounter> {
  const now = engine.clock.now();
  // The vendor's settings, currencies, rules, rewards and tiers come from memory (program-cache).
  // The reads are made together, in one read transaction of the read connection: on a file the
  // session is read there synchronously, so the reads that need it join the same transaction.
  const { session, user, link, program, lastVisit, recentOrders, accounts } = await inOneSnapshot(engine.db, () => {
    const rows = sessionAtCounter.now(engine.db, hash, scope.vendorId, scope.storeId);
    const mayRead = (row: { kiosk_identified_at: number | null }) => mayReadSession(scope.role, row.kiosk_identified_at, now);
    return rows ? readsFor(engine, rows, mayRead) : sessionAtCounter(engine.db, hash, scope.vendorId, scope.storeId).then((read) => readsFor(engine, read, mayRead));
  });
  const member = { vendorId: session.vendor_id, userId: session.user_id };
  const balances = await balancesIn(engine, program, member, accounts);
  const tier = link.tier_id === null ? null : (program.tiers.find((t) => t.id === link.tier_id) ?? null);
  const threshold = tier?.threshold ?? -1;
  const quickPay = program.currencies.find((c) => c.id === program.vendor.quick_pay_currency_id);
  const counted = tierCurrencyIn(program);
  return customerSeenBy(scope.role, {
    session,
    membership: { user: seenAtCounter(user, link), link, vendor: program.vendor, tier, moneyDigits: quickPay?.code ? minorUnitDigits(quickPay.code) : 2 },
    balances,
    rewards: rewardsIn(program, now, balances),
    // A rule counting in a cash currency (an ISO code) earns nothing at an order: not offered either.
    earningRules: program.earningRules.filter((r) => r.status === 'ACTIVE' && inWindow(r, now) && program.currencies.find((c) => c.id === r.currency_id)?.code === null),
    nextTier: program.tiers.find((t) => t.threshold > threshold) ?? null,
    tierCurrency: counted && { id: counted.id, name: counted.name },
    lastVisit: lastVisit ? { at: lastVisit.created_at, storeId: lastVisit.store_id, storeName: lastVisit.name } : null,
    favouriteItems: favourites(recentOrders.map((o) => JSON.parse(o.items) as Array<{ name: string; quantity: number; sku: string | null }>)),
  });
}

/** The session's customer and membership from its row, and the reads that need them, started now. */
function readsFor(engine: Engine, [row]: Awaited<ReturnType<typeof sessionAtCounter>>, mayRead: (row: { kiosk_identified_at: number | null }) => boolean) {
  // A session a kiosk key may not read answers as one that does not exist (kiosk-view).
  if (!row || !mayRead(row)) throw new ServiceError('session_not_found', undefined, 'pos_session_hash');
  if (row.u_id === null || row.uv_id === null) throw new ServiceError('user_not_found');
  const session: CounterSession = { id: row.id, hash: row.hash, status: row.status, card_number: row.card_number, vendor_id: row.vendor_id, user_id: row.user_id };
  const user: CounterUser = {
    id: row.u_id,
    first_name: row.first_name!,
    last_name: row.last_name!,
    email: row.email,
    phone: row.phone,
    birthdate: row.birthdate,
    email_verified_at: row.email_verified_at,
    phone_verified_at: row.phone_verified_at,
  };
  const link: CounterLink = {
    user_id: row.user_id,
    vendor_id: row.vendor_id,
    language: row.language,
    contact_consent: row.contact_consent!,
    created_at: row.uv_created_at!,
    flagged: row.flagged!,
    tier_id: row.tier_id,
    reload_amount: row.reload_amount!,
    reload_threshold: row.reload_threshold!,
    billing_profile_id: row.billing_profile_id,
    counter_enrolled: row.counter_enrolled!,
  };
  return Promise.all([
    programData(engine.db, session.vendor_id),
    lastVisitOf(engine.db, session.user_id, session.vendor_id).then((rows) => rows[0]),
    recentOrdersOf(engine.db, session.user_id, session.vendor_id),
    holderAccounts(engine.db, session.vendor_id, 'user', session.user_id),
  ]).then(([program, lastVisit, recentOrders, accounts]) => ({ session, user, link, program, lastVisit, recentOrders, accounts }));
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
