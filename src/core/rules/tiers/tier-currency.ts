import { type Kysely, type Selectable, sql } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { findCurrencyRow } from '../../currencies/currency-store';
import type { ProgramData } from '../../program-cache/program-data';
import type { CurrenciesTable, DB } from '../../storage/schema';

/**
 * The loyalty currency a program's tiers count (one ladder, one measure: stamps and points are not
 * added up): `vendors.tier_currency_id`, or when not set the program's first loyalty currency (the
 * one made with the program; oldest, not deleted) that is not archived — a program that retired its
 * only currency for a new one counts what members earn now — else its first archived one. Paused
 * ones keep counting (they come back). Migration 0050 names the same. A scalar subquery, so every reader of tier points
 * sees the program's setting as it is in that transaction. Null when the program has no loyalty currency.
 */
export function tierCurrencyQuery(db: Kysely<DB>, vendorId: number) {
  return db
    .selectFrom('vendors as tv')
    .where('tv.id', '=', vendorId)
    .select((eb) =>
      eb.fn
        .coalesce(
          'tv.tier_currency_id',
          eb
            .selectFrom('currencies as fc')
            .select('fc.id')
            .whereRef('fc.vendor_id', '=', 'tv.id')
            .where('fc.code', 'is', null)
            .where('fc.deleted_at', 'is', null)
            .orderBy(sql<number>`case when fc.status = 'ARCHIVED' then 1 else 0 end`)
            .orderBy('fc.created_at')
            .orderBy('fc.id')
            .limit(1),
        )
        .as('currency_id'),
    );
}

/** tierCurrencyQuery's choice from a program's cached data (its currencies oldest first, deleted ones kept): what the counter names. */
export function tierCurrencyIn(program: Pick<ProgramData, 'vendor' | 'currencies'>): Selectable<CurrenciesTable> | null {
  const { vendor, currencies } = program;
  const loyalty = currencies.filter((c) => c.code === null && c.deleted_at === null);
  return currencies.find((c) => c.id === vendor.tier_currency_id) ?? loyalty.find((c) => c.status !== 'ARCHIVED') ?? loyalty[0] ?? null;
}

/** The currency the program's tiers count, as stored (archived or paused ones too); null: none. */
export async function tierCurrencyOf(db: Kysely<DB>, vendorId: number): Promise<Selectable<CurrenciesTable> | null> {
  return (await db.selectFrom('currencies').selectAll().where('id', '=', tierCurrencyQuery(db, vendorId)).executeTakeFirst()) ?? null;
}

/**
 * The currency a program's tiers are to count, by its `curr_` id: an active loyalty currency of the
 * program (422 `unknown_currency`, `currency_not_loyalty`, `currency_not_active` on `tier_currency`).
 */
export async function tierCurrencyToCount(db: Kysely<DB>, vendorId: number, publicId: string): Promise<Selectable<CurrenciesTable>> {
  const row = await findCurrencyRow(db, vendorId, publicId.trim());
  if (!row) throw new ServiceError('unknown_currency', `No currency of this program has the id "${publicId}".`, 'tier_currency');
  if (row.code !== null) throw new ServiceError('currency_not_loyalty', `${row.name} is a cash currency (${row.code}); tiers count a loyalty currency.`, 'tier_currency');
  if (row.status !== 'ACTIVE') throw new ServiceError('currency_not_active', `${row.name} is paused or archived: tiers count an active loyalty currency.`, 'tier_currency');
  return row;
}

/**
 * A currency the program's tiers count keeps meaning points: deleting it, or giving it an ISO code,
 * is 409 `currency_in_use` until the program's tiers count another (archiving or pausing it is not:
 * what was earned in it still counts, and it comes back).
 */
export async function refuseChangingTierCurrency(db: Kysely<DB>, vendorId: number, currencyId: number, field?: string): Promise<void> {
  const counted = await tierCurrencyOf(db, vendorId);
  if (counted?.id !== currencyId) return;
  throw new ServiceError('currency_in_use', `The program's tiers count ${counted.name}: choose another currency for tiers first (tier_currency in the program settings).`, field);
}
