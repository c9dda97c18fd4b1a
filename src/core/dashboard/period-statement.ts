import { sql } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { programTimeZone } from '../stores/program-time-zone';
import { noIndexOn } from '../storage/dialect';
import { checkInsByDayQuery, dayOf, egiftsSoldByDayQuery, egiftsSoldSinceQuery, quickPayCurrencyOf, unclaimedEgiftsQuery } from './dashboard';
import { addLoyaltyMoves, type LoyaltyCurrency, loyaltyCurrenciesOf, type LoyaltyMoves, loyaltyMovesByDay } from './loyalty-moves';
import { accountsInCurrency } from './currency-accounts';
import { type DayWindow, dayLabel, dayNumberOf, daysBetween } from './time-zone-days';

// A period's statement for the bookkeeper: any run of calendar days (a month to close), per day
// and per store, with the quick-pay liability at its start and end, so the moves reconcile:
//
//   loaded − spent + returned + adjusted + forfeited − paid back + other = closing − opening
//
// Stored value is read from the ledger (entries never change, so a closed month reads the same
// every time it is asked): a sale's spend and a void's return are the store's where the order was
// placed; loads, adjustments, what leavers gave up and pay-backs are made at no store and fall on
// the program's row. `other` is every quick-pay entry of another kind — moves between a customer's
// accounts (merges, a card's value linked to its owner) that net to nothing, a repeated void central
// undid — so the identity holds whatever the ledger holds. Check-ins, orders and points are the
// dashboard's (orders not voided, by the day they were placed).
//
// eGifts sold and not yet claimed are owed too, outside every balance: their amount at the start and
// end (and each day's end) moves by what was sold less what was claimed (claims are the loads of kind
// `egift`), walked back from the gifts open now. It follows the gifts as they stand: a sale refunded
// since leaves the days it was open, as the dashboard counts it.

export const PERIOD_MAX_DAYS = 366;

export interface PeriodFigures {
  checkIns: number;
  orders: number;
  pointsIssued: number;
  pointsRedeemed: number;
  /** Stored value loaded: reloads and eGifts claimed (positive). */
  loaded: number;
  reloadAmount: number;
  egiftAmount: number;
  /** Paid with stored value (positive), voided since or not. */
  spent: number;
  returned: number;
  adjusted: number;
  /** Given up by customers who left (negative or zero). */
  forfeited: number;
  /** Paid back to customers, cash or card, net of a refused card refund's return (positive). */
  paidBack: number;
  /** Of which refunded to their cards: the processor's refunds. */
  paidBackToCards: number;
  other: number;
  /**
   * eGifts sold (their charge succeeded that day) in the quick-pay currency: the processor's charges
   * beside the reloads. Not a move of the balances: a gift is loaded when claimed.
   */
  egiftsSold: number;
  /** Points issued and redeemed in each loyalty currency (by currency id); pointsIssued and pointsRedeemed are their sums. */
  loyalty: LoyaltyMoves;
}

export interface PeriodRow extends PeriodFigures {
  day: string;
  /** null: the program's row, the moves made at no store. */
  storeId: number | null;
  storeName: string | null;
  /** On the program's row only: the quick-pay liability at the end of the day. */
  outstandingEndOfDay: number | null;
  /** On the program's row only: the eGifts sold and not claimed at the end of the day. */
  unclaimedEgiftsEndOfDay: number | null;
}

export interface PeriodStatement {
  timeZone: string;
  from: string;
  to: string;
  storeId: number | null;
  quickPayCurrency: string | null;
  /** The loyalty currencies `loyalty` is told in: the active ones and any other the period's orders moved. */
  loyaltyCurrencies: LoyaltyCurrency[];
  /** Per day, oldest first: each store in id order, then (for the whole program) the program's row. */
  rows: PeriodRow[];
  stores: Array<PeriodFigures & { id: number; name: string }>;
  /** The moves made at no store, over the period (null for one store). */
  program: PeriodFigures | null;
  total: PeriodFigures;
  /** The sum of every quick-pay balance when the period began and when it ended (null for one store). */
  openingStoredValue: number | null;
  closingStoredValue: number | null;
  /** The eGifts sold and not claimed when the period began and ended (null for one store). */
  openingUnclaimedEgifts: number | null;
  closingUnclaimedEgifts: number | null;
}

export const zeroFigures = (): PeriodFigures => ({ checkIns: 0, orders: 0, pointsIssued: 0, pointsRedeemed: 0, loaded: 0, reloadAmount: 0, egiftAmount: 0, spent: 0, returned: 0, adjusted: 0, forfeited: 0, paidBack: 0, paidBackToCards: 0, other: 0, egiftsSold: 0, loyalty: {} });

function add(into: PeriodFigures, more: Partial<PeriodFigures>): void {
  for (const [key, value] of Object.entries(more) as Array<[keyof PeriodFigures, PeriodFigures[keyof PeriodFigures]]>) {
    if (key === 'loyalty') addLoyaltyMoves(into.loyalty, value as LoyaltyMoves);
    else into[key] += value as number;
  }
}

/** The net move of the liability the figures make. */
export const netChange = (f: PeriodFigures): number => f.loaded - f.spent + f.returned + f.adjusted + f.forfeited - f.paidBack + f.other;

/** What a quick-pay ledger entry of a kind adds to the figures. */
function storedValueMove(kind: string, amount: number, paybackMethod: string | null): Partial<PeriodFigures> {
  switch (kind) {
    case 'reload':
      return { loaded: amount, reloadAmount: amount };
    case 'egift':
      return { loaded: amount, egiftAmount: amount };
    case 'spend':
      return { spent: -amount };
    case 'spend_reversal':
    case 'void_repeated': // central undoing a return a store's repeated void made twice
      return { returned: amount };
    case 'adjustment':
      return { adjusted: amount };
    case 'forfeit':
      return { forfeited: amount };
    case 'payback':
      return paybackMethod === 'card' ? { paidBack: -amount, paidBackToCards: -amount } : { paidBack: -amount };
    default:
      return { other: amount };
  }
}

/** The asked days, checked: calendar days, from no later than to, at most PERIOD_MAX_DAYS. */
function askedDays(from: string, to: string): { first: number; last: number } {
  const first = dayNumberOf(from);
  if (first === null) throw new ServiceError('invalid_period', 'from is not a calendar day (2026-11-01).', 'from');
  const last = dayNumberOf(to);
  if (last === null) throw new ServiceError('invalid_period', 'to is not a calendar day (2026-11-30).', 'to');
  if (last < first) throw new ServiceError('invalid_period', 'to is before from.', 'to');
  if (last - first + 1 > PERIOD_MAX_DAYS) throw new ServiceError('invalid_period', `A period is at most ${PERIOD_MAX_DAYS} days.`, 'to');
  return { first, last };
}

/**
 * The statement of the days `from` to `to` (ISO dates, both included), counted in the asked store's
 * time zone, else in the program's first store's (as the dashboard counts). `onlyStoreId`: the store
 * a store manager is limited to, or the store asked for — its rows only, without the program's.
 */
export async function loadPeriodStatement(engine: Engine, vendorId: number, onlyStoreId: number | null, from: string, to: string): Promise<PeriodStatement> {
  const { first, last } = askedDays(from, to);
  const db = engine.db;
  let storesQuery = db.selectFrom('stores').select(['id', 'name', 'time_zone']).where('vendor_id', '=', vendorId).orderBy('id');
  if (onlyStoreId !== null) storesQuery = storesQuery.where('id', '=', onlyStoreId);
  const stores = await storesQuery.execute();
  if (onlyStoreId !== null && stores.length === 0) throw new ServiceError('store_not_found');
  const window = daysBetween(onlyStoreId === null ? await programTimeZone(db, vendorId) : stores[0]!.time_zone, first, last);
  const end = window.bounds.at(-1)!;

  const programWide = onlyStoreId === null;
  const cells = new Map<string, PeriodFigures>();
  const cell = (day: number, storeId: number | null) => {
    const key = `${day}:${storeId ?? ''}`;
    let figures = cells.get(key);
    if (!figures) cells.set(key, (figures = zeroFigures()));
    return figures;
  };
  const storeIds = new Set(stores.map((s) => Number(s.id)));
  const put = (day: number, storeId: number | null, figures: Partial<PeriodFigures>) => {
    if (storeId === null ? !programWide : !storeIds.has(Number(storeId))) return;
    add(cell(Number(day), storeId === null ? null : Number(storeId)), figures);
  };

  for (const r of await checkInsByDayQuery(engine, vendorId, onlyStoreId, window, end).execute()) put(r.day, r.store_id, { checkIns: Number(r.n) });
  const orders = await ordersQuery(engine, vendorId, onlyStoreId, window, end).execute();
  for (const r of orders) put(r.day, r.store_id, { orders: Number(r.n), pointsIssued: Number(r.earned), pointsRedeemed: Number(r.spent) });
  const loyalty = await loyaltyMovesByDay(engine, vendorId, onlyStoreId, { from: window.from, end, day: dayOf('o.created_at', window) }, orders);
  for (const r of loyalty.rows) put(r.day, r.storeId, { loyalty: r.loyalty });

  const vendor = await quickPayCurrencyOf(db, vendorId);
  const quickPay = vendor.quick_pay_currency_id === null ? null : Number(vendor.quick_pay_currency_id);

  const netByDay = new Map<number, number>();
  let closing: number | null = null;
  let opening: number | null = null;
  let giftsClosing: number | null = null;
  let giftsOpening: number | null = null;
  if (quickPay !== null) {
    for (const r of await storedValueQuery(engine, vendorId, quickPay, window, end).execute()) {
      const amount = Number(r.amount);
      put(r.day, r.store_id === null ? null : Number(r.store_id), storedValueMove(r.kind, amount, r.payback_method));
      netByDay.set(Number(r.day), (netByDay.get(Number(r.day)) ?? 0) + amount);
    }
    if (programWide) {
      for (const r of await egiftsSoldByDayQuery(engine, vendorId, quickPay, window, end).execute()) put(r.day, null, { egiftsSold: Number(r.amount) });
      // The balances when the period ended: today's, less every move since (a period still running ends now).
      const now = await db.selectFrom('ledger_accounts').select((eb) => eb.fn.sum<number>('balance').as('total')).where('vendor_id', '=', vendorId).where('currency_id', '=', quickPay).executeTakeFirst();
      const since = await movedSinceQuery(engine, vendorId, quickPay, end).executeTakeFirst();
      closing = Number(now?.total ?? 0) - Number(since?.amount ?? 0);
      opening = closing - [...netByDay.values()].reduce((a, b) => a + b, 0);
      const open = await unclaimedEgiftsQuery(engine, vendorId, quickPay).executeTakeFirst();
      const soldSince = await egiftsSoldSinceQuery(engine, vendorId, quickPay, end).executeTakeFirst();
      giftsClosing = Number(open?.amount ?? 0) - Number(soldSince?.amount ?? 0) + Number(since?.egifts_claimed ?? 0);
    }
  }

  const endOfDay = new Map<number, number>();
  if (opening !== null) {
    let running = opening;
    for (const d of window.dayNumbers) endOfDay.set(d, (running += netByDay.get(d) ?? 0));
  }
  const giftsEndOfDay = new Map<number, number>();
  if (giftsClosing !== null) {
    const giftsMove = (d: number) => {
      const f = cells.get(`${d}:`);
      return f ? f.egiftsSold - f.egiftAmount : 0;
    };
    giftsOpening = giftsClosing - window.dayNumbers.reduce((sum, d) => sum + giftsMove(d), 0);
    let running = giftsOpening;
    for (const d of window.dayNumbers) giftsEndOfDay.set(d, (running += giftsMove(d)));
  }

  const rows: PeriodRow[] = [];
  const byStore = new Map(stores.map((s) => [Number(s.id), zeroFigures()]));
  const program = programWide ? zeroFigures() : null;
  const total = zeroFigures();
  for (const d of window.dayNumbers) {
    for (const s of stores) {
      const figures = cells.get(`${d}:${Number(s.id)}`) ?? zeroFigures();
      rows.push({ day: dayLabel(d), storeId: Number(s.id), storeName: s.name, outstandingEndOfDay: null, unclaimedEgiftsEndOfDay: null, ...figures });
      add(byStore.get(Number(s.id))!, figures);
      add(total, figures);
    }
    if (program) {
      const figures = cells.get(`${d}:`) ?? zeroFigures();
      rows.push({ day: dayLabel(d), storeId: null, storeName: null, outstandingEndOfDay: endOfDay.get(d) ?? null, unclaimedEgiftsEndOfDay: giftsEndOfDay.get(d) ?? null, ...figures });
      add(program, figures);
      add(total, figures);
    }
  }
  return {
    timeZone: window.timeZone,
    from,
    to,
    storeId: onlyStoreId,
    quickPayCurrency: vendor.code ?? null,
    loyaltyCurrencies: await loyaltyCurrenciesOf(db, vendorId, loyalty.moved),
    rows,
    stores: stores.map((s) => ({ id: Number(s.id), name: s.name, ...byStore.get(Number(s.id))! })),
    program,
    total,
    openingStoredValue: opening,
    closingStoredValue: closing,
    openingUnclaimedEgifts: giftsOpening,
    closingUnclaimedEgifts: giftsClosing,
  };
}

// The period’s rows through the (vendor_id, created_at) indexes (migration 0025), bounded on both
// sides. Exported for the test of their plans (test/storage/period-statement-plans).

export function ordersQuery(engine: Engine, vendorId: number, onlyStoreId: number | null, window: DayWindow, end: number) {
  const query = engine.db
    .selectFrom('orders')
    .select((eb) => [
      dayOf('created_at', window).as('day'),
      'store_id',
      eb.fn.countAll().as('n'),
      eb.fn.sum<number>('points_earned').as('earned'),
      eb.fn.sum<number>('points_spent').as('spent'),
    ])
    .where('vendor_id', '=', vendorId)
    .where('created_at', '>=', window.from)
    .where('created_at', '<', end)
    .where('status', '=', 'complete')
    .groupBy(['day', 'store_id']);
  return onlyStoreId === null ? query : query.where(noIndexOn(engine.dialect, 'store_id'), '=', onlyStoreId);
}

/**
 * Quick-pay ledger moves per day, kind and store: an entry about an order is the store's where the
 * order was placed, one about a pay-back says how it was paid (each id read only from a reference of
 * its kind: the cast never meets other text).
 */
export function storedValueQuery(engine: Engine, vendorId: number, quickPayCurrencyId: number, window: DayWindow, end: number) {
  return engine.db
    .selectFrom('ledger_entries as e')
    .leftJoin('orders as o', (join) => join.on(sql<boolean>`o.id = case when e.reference_type = 'order' then cast(e.reference_id as bigint) end`))
    .leftJoin('stored_value_paybacks as p', (join) => join.on(sql<boolean>`p.id = case when e.reference_type = 'payback' then cast(e.reference_id as bigint) end`))
    .select((eb) => [dayOf('e.created_at', window).as('day'), 'e.kind', 'o.store_id', 'p.method as payback_method', eb.fn.sum<number>('e.amount').as('amount')])
    .where('e.vendor_id', '=', vendorId)
    .where('e.account_id', 'in', accountsInCurrency(engine.db, vendorId, quickPayCurrencyId))
    .where('e.created_at', '>=', window.from)
    .where('e.created_at', '<', end)
    .groupBy(['day', 'e.kind', 'o.store_id', 'p.method']);
}

/** What moved the quick-pay balances from `since` on, and of it what claimed eGifts loaded. */
export function movedSinceQuery(engine: Engine, vendorId: number, quickPayCurrencyId: number, since: number) {
  return engine.db
    .selectFrom('ledger_entries as e')
    .select((eb) => [eb.fn.sum<number>('e.amount').as('amount'), eb.fn.sum<number>(sql`case when e.kind = 'egift' then e.amount else 0 end`).as('egifts_claimed')])
    .where('e.vendor_id', '=', vendorId)
    .where('e.account_id', 'in', accountsInCurrency(engine.db, vendorId, quickPayCurrencyId))
    .where('e.created_at', '>=', since);
}
