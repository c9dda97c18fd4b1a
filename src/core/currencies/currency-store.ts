import type { Kysely, Selectable } from 'kysely';
import type { ListPage, ListPlan } from '../listing/list-plan';
import { fetchPage, whereStartsWith } from '../listing/list-plan';
import { prepared } from '../storage/prepared';
import type { CurrenciesTable, DB } from '../storage/schema';
import { currencyNameKey } from './currency';

export type CurrencyFilterKey = 'n' | 's';
export type CurrencySortField = 'date_created' | 'date_updated' | 'name';
const SORT_COLUMNS: Record<CurrencySortField, string> = { date_created: 'created_at', date_updated: 'updated_at', name: 'name_key' };

const currencyByPublicId = prepared((db, vendorId: number, publicId: string) =>
  db.selectFrom('currencies').selectAll().where('vendor_id', '=', vendorId).where('public_id', '=', publicId).where('deleted_at', 'is', null),
);

export async function findCurrencyRow(db: Kysely<DB>, vendorId: number, publicId: string): Promise<Selectable<CurrenciesTable> | undefined> {
  return (await currencyByPublicId(db, vendorId, publicId))[0];
}

export async function currencyNameTaken(db: Kysely<DB>, vendorId: number, nameKey: string, exceptId?: number) {
  let query = db
    .selectFrom('currencies')
    .select('id')
    .where('vendor_id', '=', vendorId)
    .where('name_key', '=', nameKey)
    .where('deleted_at', 'is', null);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** A currency that any ledger account uses holds (or held) value. */
export async function currencyHasAccounts(db: Kysely<DB>, currencyId: number): Promise<boolean> {
  const row = await db.selectFrom('ledger_accounts').select('id').where('currency_id', '=', currencyId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Some account (a customer's, a card's) holds a balance other than zero in the currency. */
export async function currencyHoldsBalances(db: Kysely<DB>, currencyId: number): Promise<boolean> {
  const row = await db.selectFrom('ledger_accounts').select('id').where('currency_id', '=', currencyId).where('balance', '!=', 0).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Earning rules or rewards (any status: a paused one may return) count in the currency. */
export async function currencyHasRules(db: Kysely<DB>, currencyId: number): Promise<boolean> {
  const [earning, spending] = await Promise.all([
    db.selectFrom('earning_rules').select('id').where('currency_id', '=', currencyId).limit(1).executeTakeFirst(),
    db.selectFrom('spending_rules').select('id').where('currency_id', '=', currencyId).where('deleted_at', 'is', null).limit(1).executeTakeFirst(),
  ]);
  return earning !== undefined || spending !== undefined;
}

/** The currency is its vendor's quick-pay (stored value) currency. */
export async function isQuickPayCurrency(db: Kysely<DB>, vendorId: number, currencyId: number): Promise<boolean> {
  const row = await db.selectFrom('vendors').select('id').where('id', '=', vendorId).where('quick_pay_currency_id', '=', currencyId).executeTakeFirst();
  return row !== undefined;
}

export function listCurrencyRows(
  db: Kysely<DB>,
  vendorId: number,
  plan: ListPlan<CurrencyFilterKey, CurrencySortField>,
): Promise<ListPage<Selectable<CurrenciesTable>>> {
  let query = db.selectFrom('currencies').selectAll().where('vendor_id', '=', vendorId).where('deleted_at', 'is', null);
  if (plan.filters.n !== undefined) query = whereStartsWith(query, 'name_key', currencyNameKey(plan.filters.n));
  if (plan.filters.s !== undefined) query = query.where('status', '=', plan.filters.s);
  return fetchPage(query, plan, SORT_COLUMNS[plan.sort]);
}
