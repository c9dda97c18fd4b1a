import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Engine } from '../engine';
import { noIndexOn } from '../storage/dialect';
import type { DB } from '../storage/schema';

// Points issued and redeemed, per loyalty currency. A program with "Points" and "Stamps" counted both
// in one figure (orders.points_earned sums every currency: 40 points and 8 stamps read "48 points
// issued"); the dashboard and the period statement now also say each currency's own figures, read
// from the ledger entries of the orders they count (not voided, by the day they were placed).

/** What a day, store or period's orders issued and redeemed in each loyalty currency, by currency id. */
export type LoyaltyMoves = Record<number, { issued: number; redeemed: number }>;

/** A loyalty currency the figures are told in. */
export interface LoyaltyCurrency {
  id: number;
  publicId: string;
  name: string;
}

/** Adds `more` into `into` (currency by currency). */
export function addLoyaltyMoves(into: LoyaltyMoves, more: LoyaltyMoves): void {
  for (const [id, moves] of Object.entries(more)) {
    const entry = (into[Number(id)] ??= { issued: 0, redeemed: 0 });
    entry.issued += moves.issued;
    entry.redeemed += moves.redeemed;
  }
}

/** A day's (or store's) figures from one row of `loyaltyMovesByDayQuery`. */
function loyaltyMoveOf(row: { currency_id: number; kind: string; amount: number | string }): LoyaltyMoves {
  const amount = Number(row.amount);
  return { [Number(row.currency_id)]: row.kind === 'earn' ? { issued: amount, redeemed: 0 } : { issued: 0, redeemed: -amount } };
}

/**
 * The program's loyalty currencies, archived and deleted ones included, two at most: with one, its
 * orders' own sums (points_earned, points_spent) are that currency's figures and the ledger need not
 * be read (`loyaltyMovesByDayQuery` took ~3 s for 30 days of a year-old central); with two or more,
 * it must.
 */
async function loyaltyCurrencyIdsUpToTwo(db: Kysely<DB>, vendorId: number): Promise<number[]> {
  const rows = await db.selectFrom('currencies').select('id').where('vendor_id', '=', vendorId).where('code', 'is', null).orderBy('id').limit(2).execute();
  return rows.map((r) => Number(r.id));
}

/** An orders row's figures in the program's only loyalty currency (nothing when nothing moved). */
function soleCurrencyMoves(currencyId: number, earned: number, spent: number): LoyaltyMoves {
  return earned === 0 && spent === 0 ? {} : { [currencyId]: { issued: earned, redeemed: spent } };
}

/** The orders' figures per day and store, as the dashboard and the period statement read them. */
interface OrdersByDay {
  day: number;
  store_id: number | null;
  earned: number | string | null;
  spent: number | string | null;
}

/**
 * Each day and store's moves per loyalty currency, and the currencies that moved: the caller's
 * `orders` rows (their sums) when the program has one loyalty currency, the ledger's entries of those
 * orders (`loyaltyMovesByDayQuery`, over the same `range`) when it has several.
 */
export async function loyaltyMovesByDay(
  engine: Engine,
  vendorId: number,
  onlyStoreId: number | null,
  range: Parameters<typeof loyaltyMovesByDayQuery>[3],
  orders: readonly OrdersByDay[],
): Promise<{ rows: Array<{ day: number; storeId: number | null; loyalty: LoyaltyMoves }>; moved: Set<number> }> {
  const ids = await loyaltyCurrencyIdsUpToTwo(engine.db, vendorId);
  const rows =
    ids.length === 1
      ? orders.map((r) => ({ day: Number(r.day), storeId: r.store_id, loyalty: soleCurrencyMoves(ids[0]!, Number(r.earned), Number(r.spent)) }))
      : ids.length > 1
        ? (await loyaltyMovesByDayQuery(engine, vendorId, onlyStoreId, range).execute()).map((r) => ({ day: Number(r.day), storeId: r.store_id, loyalty: loyaltyMoveOf(r) }))
        : [];
  return { rows, moved: new Set(rows.flatMap((r) => Object.keys(r.loyalty).map(Number))) };
}

/**
 * Earned and redeemed points of the orders not voided placed from `from` (and before `end`), per
 * day (`day`: the caller's day of `o.created_at`), store and currency: the orders through
 * (vendor_id, created_at), each one's entries through the ledger's reference index.
 */
export function loyaltyMovesByDayQuery(engine: Engine, vendorId: number, onlyStoreId: number | null, range: { from: number; end?: number; day: RawBuilder<number> }) {
  const { from, end, day } = range;
  const query = engine.db
    .selectFrom('orders as o')
    // A cross join keeps the orders outer on SQLite (it plans without statistics, and from the
    // constant reference_type walked every order's entries ever made); PostgreSQL plans it as a join.
    .crossJoin('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .where('e.reference_type', '=', 'order')
    .where(sql<boolean>`e.reference_id = cast(o.id as text)`)
    .select((eb) => [day.as('day'), 'o.store_id', 'a.currency_id', 'e.kind', eb.fn.sum<number>('e.amount').as('amount')])
    .where('o.vendor_id', '=', vendorId)
    .where('o.created_at', '>=', from)
    .$if(end !== undefined, (q) => q.where('o.created_at', '<', end!))
    .where(noIndexOn(engine.dialect, 'o.status'), '=', 'complete')
    .where('e.kind', 'in', ['earn', 'redeem'])
    .groupBy(['day', 'o.store_id', 'a.currency_id', 'e.kind']);
  return onlyStoreId === null ? query : query.where(noIndexOn(engine.dialect, 'o.store_id'), '=', onlyStoreId);
}

/**
 * The loyalty currencies the figures name: the program's active ones and any other one its orders
 * moved in the figures (a currency archived or deleted since: its figures are in the sums), in the
 * order they were made.
 */
export async function loyaltyCurrenciesOf(db: Kysely<DB>, vendorId: number, moved: Iterable<number>): Promise<LoyaltyCurrency[]> {
  const movedIds = new Set(moved);
  const rows = await db.selectFrom('currencies').select(['id', 'public_id', 'name', 'status', 'deleted_at']).where('vendor_id', '=', vendorId).where('code', 'is', null).orderBy('id').execute();
  const shown = (c: (typeof rows)[number]) => (c.status === 'ACTIVE' && c.deleted_at === null) || movedIds.has(Number(c.id));
  return rows.filter(shown).map((c) => ({ id: Number(c.id), publicId: c.public_id, name: c.name }));
}

/** The figures on the wire: one entry per currency shown, zero where nothing moved. */
export function loyaltyMovesToWire(moves: LoyaltyMoves, currencies: readonly LoyaltyCurrency[]) {
  return currencies.map((c) => ({ currency: c.publicId, name: c.name, issued: moves[c.id]?.issued ?? 0, redeemed: moves[c.id]?.redeemed ?? 0 }));
}
