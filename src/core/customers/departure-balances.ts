import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { toMajorUnits } from '../../shared/money';
import type { Engine } from '../engine';
import { postEntry } from '../ledger/ledger';
import type { DB } from '../storage/schema';

/** A balance a customer holds at a program, with its currency (a code: money; none: points). */
export interface HeldAtProgram {
  accountId: number;
  currency: { id: number; name: string; code: string | null };
  balance: number;
}

/** What the customer holds at the program (balances above zero: a debt is not theirs to give up). */
export async function heldAtProgram(db: Kysely<DB>, vendorId: number, userId: number): Promise<HeldAtProgram[]> {
  const rows = await db
    .selectFrom('ledger_accounts as a')
    .innerJoin('currencies as c', 'c.id', 'a.currency_id')
    .select(['a.id', 'a.balance', 'c.id as currency_id', 'c.name', 'c.code'])
    .where('a.vendor_id', '=', vendorId)
    .where('a.holder_type', '=', 'user')
    .where('a.holder_id', '=', userId)
    .where('a.balance', '>', 0)
    .orderBy('c.id')
    .execute();
  return rows.map((row) => ({ accountId: Number(row.id), currency: { id: Number(row.currency_id), name: row.name, code: row.code }, balance: Number(row.balance) }));
}

/**
 * The customer's own deletion refuses while they hold money (stored value) at the program, unless
 * they give it up in so many words; points alone never stop it (they go with the membership).
 */
export function refuseWhileHoldingMoney(held: readonly HeldAtProgram[], forfeitBalances: boolean): void {
  if (!forfeitBalances && held.some((balance) => balance.currency.code !== null)) throw new ServiceError('stored_value_remaining', undefined, 'forfeit_balances');
}

/**
 * What a departure gives up leaves the ledger as breakage: one `forfeit` entry per account brings
 * it to zero, so no erased person keeps a balance and the program's liability falls. Written where
 * the departure is (central, or a standalone node); the entries travel to stores like any other.
 */
export async function forfeitHeldBalances(db: Kysely<DB>, engine: Engine, userId: number, vendorId: number): Promise<HeldAtProgram[]> {
  const held = await heldAtProgram(db, vendorId, userId);
  for (const balance of held) await postEntry(db, engine, balance.accountId, { amount: -balance.balance, kind: 'forfeit', referenceType: 'departure', referenceId: String(userId) });
  return held;
}

/** The forfeit as the deletion email states it: "KWD 5.000 and 120 Points" (en), "5,000 KWD y 120 Points" (es); '' for nothing. */
export function describeForfeit(held: readonly HeldAtProgram[], locale: string): string {
  const spanish = locale.startsWith('es');
  // Money first: it is what the customer most needs to read.
  const moneyFirst = [...held].sort((a, b) => Number(a.currency.code === null) - Number(b.currency.code === null));
  const parts = moneyFirst.map(({ currency, balance }) => {
    if (currency.code === null) return `${balance.toLocaleString(spanish ? 'es' : 'en-US')} ${currency.name}`;
    const digits = minorUnitDigits(currency.code);
    const format = new Intl.NumberFormat(spanish ? 'es' : 'en-US', { style: 'currency', currency: currency.code, minimumFractionDigits: digits, maximumFractionDigits: digits });
    return format.format(toMajorUnits(balance, digits));
  });
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} ${spanish ? 'y' : 'and'} ${parts[parts.length - 1]}`;
}
