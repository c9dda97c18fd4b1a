import { type Kysely, sql } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { programTimeZone } from '../stores/program-time-zone';
import { noIndexOn } from '../storage/dialect';
import type { DB } from '../storage/schema';
import { addLoyaltyMoves, type LoyaltyCurrency, loyaltyCurrenciesOf, type LoyaltyMoves, loyaltyMovesByDay } from './loyalty-moves';
import { accountsInCurrency } from './currency-accounts';
import { dayLabel, lastDays } from './time-zone-days';

// The back office's dashboard: today and the last 30 days, per day and per store, from the orders,
// the check-ins (pos sessions) and the ledger.
//
// - check-ins: sessions opened; orders: orders placed and not voided;
// - points issued / redeemed: what those orders earned and redeemed (orders.points_earned,
//   points_spent: every loyalty currency together), and each loyalty currency's own (`loyalty`);
// - stored value spent: what every sale paid with quick pay on its day (quick_pay_used), voided
//   later or not — the money left the balances that day;
// - stored value returned: what voids gave back to quick-pay balances, on the void's day (ledger
//   spend reversals; program-wide);
// - stored value loaded: reload and eGift credits in the ledger (program-wide: they are not made at
//   a store), with their counts;
// - stored value adjusted: the net of staff adjustments of quick pay (program-wide);
// - stored value forfeited: what customers who left gave up (breakage: `forfeit` entries, negative;
//   program-wide);
// - stored value paid back: what staff paid out to customers, in cash or to their cards (`payback`
//   entries net of a refused card refund's return; shown positive; program-wide), so each day's
//   move of the liability reads as loaded − spent + returned + adjusted + forfeited − paid back;
// - outstanding stored value: the sum of every quick-pay balance, now and at the end of each day
//   (program-wide only);
// - eGifts sold, not yet claimed: gifts paid for (scheduled or sent, their charge succeeded) in the
//   quick-pay currency and not claimed, now and at the end of each day — money the program owes
//   that is in no balance yet; with the balances, the program's liability (program-wide only).

export const DASHBOARD_DAYS = 30;

export interface Figures {
  checkIns: number;
  orders: number;
  pointsIssued: number;
  pointsRedeemed: number;
  storedValueLoaded: number;
  storedValueSpent: number;
  storedValueReturned: number;
  storedValueAdjusted: number;
  storedValueForfeited: number;
  /** Stored value paid back to customers (cash or card), positive. */
  storedValuePaidBack: number;
  reloads: number;
  reloadAmount: number;
  egifts: number;
  egiftAmount: number;
  /** Points issued and redeemed in each loyalty currency (by currency id). */
  loyalty: LoyaltyMoves;
}

export interface Dashboard {
  timeZone: string;
  storeId: number | null;
  quickPayCurrency: string | null;
  /** The loyalty currencies `loyalty` is told in: the active ones and any other the window's orders moved. */
  loyaltyCurrencies: LoyaltyCurrency[];
  today: Figures;
  last30Days: Figures;
  outstandingStoredValue: number | null;
  /** eGifts sold and not yet claimed, now: their count and amount (null for one store). */
  unclaimedEgifts: { count: number; amount: number } | null;
  /** The program's liability now: the balances and the unclaimed gifts (null for one store). */
  outstandingLiability: number | null;
  days: Array<Figures & { day: string; outstandingStoredValue: number | null; unclaimedEgiftAmount: number | null }>;
  stores: Array<Figures & { id: number; name: string }>;
}

const zero = (): Figures => ({ checkIns: 0, orders: 0, pointsIssued: 0, pointsRedeemed: 0, storedValueLoaded: 0, storedValueSpent: 0, storedValueReturned: 0, storedValueAdjusted: 0, storedValueForfeited: 0, storedValuePaidBack: 0, reloads: 0, reloadAmount: 0, egifts: 0, egiftAmount: 0, loyalty: {} });

function add(into: Figures, more: Partial<Figures>): void {
  for (const [key, value] of Object.entries(more) as Array<[keyof Figures, Figures[keyof Figures]]>) {
    if (key === 'loyalty') addLoyaltyMoves(into.loyalty, value as LoyaltyMoves);
    else into[key] += value as number;
  }
}

/**
 * `onlyStoreId`: the store a store manager is limited to, or the store asked for (null: the whole
 * program). Days are counted in that store's time zone, else in the program's first store's.
 */
export async function loadDashboard(engine: Engine, vendorId: number, onlyStoreId: number | null): Promise<Dashboard> {
  const db = engine.db;
  let storesQuery = db.selectFrom('stores').select(['id', 'name', 'time_zone']).where('vendor_id', '=', vendorId).orderBy('id');
  if (onlyStoreId !== null) storesQuery = storesQuery.where('id', '=', onlyStoreId);
  const stores = await storesQuery.execute();
  if (onlyStoreId !== null && stores.length === 0) throw new ServiceError('store_not_found');
  const now = engine.clock.now();
  const window = lastDays(onlyStoreId === null ? await programTimeZone(db, vendorId) : stores[0]!.time_zone, now, DASHBOARD_DAYS);

  const byDay = new Map(window.dayNumbers.map((d) => [d, zero()]));
  const byStore = new Map(stores.map((s) => [Number(s.id), zero()]));
  const put = (dayNumber: number, storeId: number | null, figures: Partial<Figures>) => {
    const dayFigures = byDay.get(Number(dayNumber));
    if (dayFigures) add(dayFigures, figures);
    const storeFigures = storeId === null ? undefined : byStore.get(Number(storeId));
    if (storeFigures) add(storeFigures, figures);
  };

  for (const r of await checkInsByDayQuery(engine, vendorId, onlyStoreId, window).execute()) put(r.day, r.store_id, { checkIns: Number(r.n) });

  const orders = await ordersByDayQuery(engine, vendorId, onlyStoreId, window).execute();
  for (const r of orders) put(r.day, r.store_id, { orders: Number(r.n), pointsIssued: Number(r.earned), pointsRedeemed: Number(r.spent), storedValueSpent: Number(r.paid) });
  const loyalty = await loyaltyMovesByDay(engine, vendorId, onlyStoreId, { from: window.from, day: dayOf('o.created_at', window) }, orders);
  for (const r of loyalty.rows) put(r.day, r.storeId, { loyalty: r.loyalty });

  const vendor = await quickPayCurrencyOf(db, vendorId);
  const quickPay = vendor.quick_pay_currency_id === null ? null : Number(vendor.quick_pay_currency_id);

  let outstanding: number | null = null;
  let unclaimed: { count: number; amount: number } | null = null;
  const netByDay = new Map<number, number>();
  // Unclaimed gifts' move per day: + sold that day, − claimed that day.
  const giftNetByDay = new Map<number, number>();
  const giftMove = (day: number, amount: number) => giftNetByDay.set(Number(day), (giftNetByDay.get(Number(day)) ?? 0) + amount);
  if (quickPay !== null && onlyStoreId === null) {
    const credits = await storedValueByDayQuery(engine, vendorId, quickPay, window).execute();
    for (const r of credits) {
      const amount = Number(r.amount);
      netByDay.set(Number(r.day), (netByDay.get(Number(r.day)) ?? 0) + amount);
      if (r.kind === 'reload' && amount > 0) put(r.day, null, { reloads: Number(r.n), reloadAmount: amount, storedValueLoaded: amount });
      if (r.kind === 'egift' && amount > 0) {
        put(r.day, null, { egifts: Number(r.n), egiftAmount: amount, storedValueLoaded: amount });
        giftMove(r.day, -amount);
      }
      if (r.kind === 'adjustment') put(r.day, null, { storedValueAdjusted: amount });
      if (r.kind === 'forfeit') put(r.day, null, { storedValueForfeited: amount });
      if (r.kind === 'payback') put(r.day, null, { storedValuePaidBack: -amount });
      if (r.kind === 'spend_reversal') put(r.day, null, { storedValueReturned: amount });
    }
    const total = await db
      .selectFrom('ledger_accounts')
      .select((eb) => eb.fn.sum<number>('balance').as('total'))
      .where('vendor_id', '=', vendorId)
      .where('currency_id', '=', quickPay)
      .executeTakeFirst();
    outstanding = Number(total?.total ?? 0);
    const open = await unclaimedEgiftsQuery(engine, vendorId, quickPay).executeTakeFirst();
    unclaimed = { count: Number(open?.n ?? 0), amount: Number(open?.amount ?? 0) };
    for (const r of await egiftsSoldByDayQuery(engine, vendorId, quickPay, window).execute()) giftMove(r.day, Number(r.amount));
  }

  // The liability at the end of each day: today's, less what moved on the days after.
  const endOfDay = new Map<number, number>();
  if (outstanding !== null) {
    let running = outstanding;
    for (const d of [...window.dayNumbers].reverse()) {
      endOfDay.set(d, running);
      running -= netByDay.get(d) ?? 0;
    }
  }
  const giftsEndOfDay = new Map<number, number>();
  if (unclaimed !== null) {
    let running = unclaimed.amount;
    for (const d of [...window.dayNumbers].reverse()) {
      giftsEndOfDay.set(d, running);
      running -= giftNetByDay.get(d) ?? 0;
    }
  }

  const last30Days = zero();
  for (const figures of byDay.values()) add(last30Days, figures);
  const todayNumber = window.dayNumbers[window.dayNumbers.length - 1] ?? 0;
  return {
    timeZone: window.timeZone,
    storeId: onlyStoreId,
    quickPayCurrency: vendor.code ?? null,
    loyaltyCurrencies: await loyaltyCurrenciesOf(db, vendorId, loyalty.moved),
    today: { ...(byDay.get(todayNumber) ?? zero()) },
    last30Days,
    outstandingStoredValue: outstanding,
    unclaimedEgifts: unclaimed,
    outstandingLiability: outstanding === null || unclaimed === null ? null : outstanding + unclaimed.amount,
    days: window.dayNumbers.map((d) => ({
      day: dayLabel(d),
      ...(byDay.get(d) ?? zero()),
      outstandingStoredValue: endOfDay.get(d) ?? null,
      unclaimedEgiftAmount: giftsEndOfDay.get(d) ?? null,
    })),
    stores: stores.map((s) => ({ id: Number(s.id), name: s.name, ...(byStore.get(Number(s.id)) ?? zero()) })),
  };
}

type Window = ReturnType<typeof lastDays>;
/**
 * The window's day a time falls on, each day between its own bounds. A row dated after today (a
 * store whose clock ran ahead, synced here) is today's: it is in the database, so it was made by now.
 */
export const dayOf = (column: string, window: Window) => {
  const earlier = window.dayNumbers.slice(0, -1).map((d, i) => sql`when ${sql.ref(column)} < ${sql.lit(window.bounds[i + 1]!)} then ${sql.lit(d)}`);
  const today = sql.lit(window.dayNumbers.at(-1)!);
  return earlier.length === 0 ? sql<number>`${today}` : sql<number>`case ${sql.join(earlier, sql` `)} else ${today} end`;
};

/** The program's quick-pay currency: its id and ISO code (both null when it has none). */
export function quickPayCurrencyOf(db: Kysely<DB>, vendorId: number) {
  return db
    .selectFrom('vendors as v')
    .leftJoin('currencies as c', 'c.id', 'v.quick_pay_currency_id')
    .select(['v.quick_pay_currency_id', 'c.code'])
    .where('v.id', '=', vendorId)
    .executeTakeFirstOrThrow();
}

// The window's rows through the (vendor_id, created_at) indexes (migration 0025), never the
// program's whole history; `end` bounds a window that ends before now (a period's statement).
// Exported for the test of their plans (test/storage/query-plans).

/** Check-ins (sessions opened) per day and store. */
export function checkInsByDayQuery(engine: Engine, vendorId: number, onlyStoreId: number | null, window: Window, end?: number) {
  const query = engine.db
    .selectFrom('pos_sessions')
    .select((eb) => [dayOf('created_at', window).as('day'), 'store_id', eb.fn.countAll().as('n')])
    .where('vendor_id', '=', vendorId)
    .where('created_at', '>=', window.from)
    .$if(end !== undefined, (q) => q.where('created_at', '<', end!))
    .groupBy(['day', 'store_id']);
  return onlyStoreId === null ? query : query.where(noIndexOn(engine.dialect, 'store_id'), '=', onlyStoreId);
}

/**
 * Orders per day and store: those not voided, with the points they moved; what every sale paid with
 * quick pay, voided since or not.
 */
export function ordersByDayQuery(engine: Engine, vendorId: number, onlyStoreId: number | null, window: Window) {
  const query = engine.db
    .selectFrom('orders')
    .select((eb) => [
      dayOf('created_at', window).as('day'),
      'store_id',
      eb.fn.sum<number>(sql`case when status = 'complete' then 1 else 0 end`).as('n'),
      eb.fn.sum<number>(sql`case when status = 'complete' then points_earned else 0 end`).as('earned'),
      eb.fn.sum<number>(sql`case when status = 'complete' then points_spent else 0 end`).as('spent'),
      eb.fn.sum<number>('quick_pay_used').as('paid'),
    ])
    .where('vendor_id', '=', vendorId)
    .where('created_at', '>=', window.from)
    .where('status', 'in', ['complete', 'voided'])
    .groupBy(['day', 'store_id']);
  return onlyStoreId === null ? query : query.where(noIndexOn(engine.dialect, 'store_id'), '=', onlyStoreId);
}

/** Quick-pay ledger moves per day and kind (program-wide). */
export function storedValueByDayQuery(engine: Engine, vendorId: number, quickPayCurrencyId: number, window: Window) {
  return engine.db
    .selectFrom('ledger_entries as e')
    .select((eb) => [dayOf('e.created_at', window).as('day'), 'e.kind', eb.fn.countAll().as('n'), eb.fn.sum<number>('e.amount').as('amount')])
    .where('e.vendor_id', '=', vendorId)
    .where('e.account_id', 'in', accountsInCurrency(engine.db, vendorId, quickPayCurrencyId))
    .where('e.created_at', '>=', window.from)
    .groupBy(['day', 'e.kind']);
}

/**
 * The gifts sold and not claimed now, in the quick-pay currency: scheduled or sent (a pending gift is
 * not paid yet; a declined one never was), their charge succeeded (never one refunded). Through the
 * status index: only the open gifts of every program are read.
 */
export function unclaimedEgiftsQuery(engine: Engine, vendorId: number, quickPayCurrencyId: number) {
  return engine.db
    .selectFrom('egifts as g')
    .innerJoin('payment_charges as c', 'c.id', 'g.charge_id')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum<number>('g.amount').as('amount')])
    .where('g.status', 'in', ['scheduled', 'sent'])
    .where('g.vendor_id', '=', vendorId)
    .where('g.currency_id', '=', quickPayCurrencyId)
    // Each gift's charge by its key: never a walk of every program's succeeded charges.
    .where(noIndexOn(engine.dialect, 'c.status'), '=', 'succeeded');
}

/**
 * The gifts sold (their charge succeeded) from `from` (and before `end`), in the quick-pay currency,
 * claimed since or not: what the unclaimed amount grew by. Through the gifts' (status, updated_at)
 * index — a gift sold after `from` was last updated after it — and each gift's charge by its key.
 */
function egiftsSoldFrom(engine: Engine, vendorId: number, quickPayCurrencyId: number, from: number, end?: number) {
  return engine.db
    .selectFrom('egifts as g')
    .innerJoin('payment_charges as c', 'c.id', 'g.charge_id')
    .where('g.status', 'in', ['scheduled', 'sent', 'claimed'])
    .where('g.updated_at', '>=', from)
    .where('g.vendor_id', '=', vendorId)
    .where('g.currency_id', '=', quickPayCurrencyId)
    .where(noIndexOn(engine.dialect, 'c.status'), '=', 'succeeded')
    .where('c.completed_at', '>=', from)
    .$if(end !== undefined, (q) => q.where('c.completed_at', '<', end!));
}

/** Gifts sold per day of the window (bounded by `end` when given). */
export function egiftsSoldByDayQuery(engine: Engine, vendorId: number, quickPayCurrencyId: number, window: Window, end?: number) {
  return egiftsSoldFrom(engine, vendorId, quickPayCurrencyId, window.from, end)
    .select((eb) => [dayOf('c.completed_at', window).as('day'), eb.fn.sum<number>('g.amount').as('amount')])
    .groupBy('day');
}

/** Gifts sold from `since` on, in all. */
export function egiftsSoldSinceQuery(engine: Engine, vendorId: number, quickPayCurrencyId: number, since: number) {
  return egiftsSoldFrom(engine, vendorId, quickPayCurrencyId, since).select((eb) => eb.fn.sum<number>('g.amount').as('amount'));
}
