import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import type { HolderType } from '../ledger/ledger';
import type { DB } from '../storage/schema';
import { prepared } from '../storage/prepared';

/** A currency as balance replies show it; `digits` turns minor units into the amount shown. */
export interface CurrencyInfo {
  id: number;
  name: string;
  code: string | null;
  /** Digits of the minor unit: 2 for USD, 0 for JPY and for loyalty points. */
  digits: number;
}

/** A balance held in one currency, in minor units (points are whole numbers). */
export interface HeldBalance {
  currency: CurrencyInfo;
  balance: number;
}

export function currencyInfo(row: { id: number; name: string; code: string | null }): CurrencyInfo {
  return { id: row.id, name: row.name, code: row.code, digits: row.code ? minorUnitDigits(row.code) : 0 };
}

/** The vendor's ACTIVE currencies (quick pay and loyalty), oldest first. */
const activeCurrencyRows = prepared((db, vendorId: number) =>
  db.selectFrom('currencies').select(['id', 'name', 'code']).where('vendor_id', '=', vendorId).where('status', '=', 'ACTIVE').where('deleted_at', 'is', null).orderBy('created_at').orderBy('id'),
);

export async function activeCurrencies(db: Kysely<DB>, vendorId: number): Promise<CurrencyInfo[]> {
  return (await activeCurrencyRows(db, vendorId)).map(currencyInfo);
}

/** activeCurrencies from the program's currencies (program-cache: all of them, oldest first). */
export function activeCurrenciesIn(currencies: ReadonlyArray<{ id: number; name: string; code: string | null; status: string; deleted_at: number | null }>): CurrencyInfo[] {
  return currencies.filter((c) => c.status === 'ACTIVE' && c.deleted_at === null).map(currencyInfo);
}

export interface HolderAccount {
  accountId: number;
  currencyId: number;
  balance: number;
}

/** The ledger accounts of one holder (a customer or an unlinked card) with the vendor, by currency id. */
const accountsOfHolder = prepared((db, holderType: string, holderId: number, vendorId: number) =>
  db.selectFrom('ledger_accounts').select(['id', 'currency_id', 'balance']).where('holder_type', '=', holderType).where('holder_id', '=', holderId).where('vendor_id', '=', vendorId),
);

export async function holderAccounts(db: Kysely<DB>, vendorId: number, holderType: HolderType, holderId: number): Promise<Map<number, HolderAccount>> {
  const rows = await accountsOfHolder(db, holderType, holderId, vendorId);
  return new Map(rows.map((row) => [row.currency_id, { accountId: row.id, currencyId: row.currency_id, balance: Number(row.balance) }]));
}

export interface ExpiringLot {
  accountId: number;
  amount: number;
  expiresAt: number;
}

/**
 * Credits that will expire after `now`, soonest first: positive entries with a future expires_at
 * that no compensating entry reversed.
 */
export async function upcomingLots(db: Kysely<DB>, accountIds: number[], now: number): Promise<ExpiringLot[]> {
  // Built once and run per account (a customer holds one or two): every retrieve at the counter
  // asks, and building an `in` list query each time cost more than running it (issue 13).
  const perAccount = await Promise.all(accountIds.map((id) => Promise.all([creditsExpiringAfter(db, id, now), reversedEntriesOf(db, id)])));
  const reversed = new Set(perAccount.flatMap(([, reversals]) => reversals.map((r) => Number(r.reverses_id))));
  return perAccount
    .flatMap(([lots]) => lots)
    .filter((lot) => !reversed.has(lot.id))
    .sort((a, b) => Number(a.expires_at) - Number(b.expires_at) || a.id - b.id)
    .map((lot) => ({ accountId: lot.account_id, amount: Number(lot.amount), expiresAt: Number(lot.expires_at) }));
}

/** An account's credits still to expire (read through the account's entries, test/storage/query-plans). */
export const creditsExpiringAfterQuery = (db: Kysely<DB>, accountId: number, now: number) =>
  db.selectFrom('ledger_entries').select(['id', 'account_id', 'amount', 'expires_at']).where('account_id', '=', accountId).where('amount', '>', 0).where('expires_at', '>', now);
const creditsExpiringAfter = prepared(creditsExpiringAfterQuery);

/** The entries an account's compensating entries reversed. */
export const reversedEntriesQuery = (db: Kysely<DB>, accountId: number) => db.selectFrom('ledger_entries').select('reverses_id').where('account_id', '=', accountId).where('reverses_id', 'is not', null);
const reversedEntriesOf = prepared(reversedEntriesQuery);
