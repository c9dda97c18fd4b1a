import type { Kysely } from 'kysely';
import { expiringByDay } from '../balances/expirations';
import { dayLabel, localDayOf } from '../dashboard/time-zone-days';
import type { DB } from '../storage/schema';

/**
 * The day a member's points of one currency have all expired by, as the export writes it for the
 * import's `points_expire_on` (the last day they can be spent, in the program's time zone). The
 * import gives a row's opening points one date, and a row cannot split them: where lots expire on
 * different days the export writes the latest, so no member loses a point in the move (some keep
 * theirs longer than they would have) — the soonest would take points away before their time, at
 * the counter of the program they moved to. Nothing where any of the balance has no date (an
 * adjustment's, a refund's, or a lot past its date the expiry job has not taken yet): the import
 * then dates the balance by its program's rule. Nothing for a balance of 0 or below.
 *
 * One page's accounts at once: their credits still to expire, less those a void or refund reversed
 * (as balance-store.ts's upcomingLots reads one account's), taken soonest first as spending takes them.
 */
export async function lastExpiryDays(db: Kysely<DB>, accounts: ReadonlyArray<{ id: number; balance: number }>, now: number, timeZone: string): Promise<Map<number, string>> {
  const held = accounts.filter((a) => a.balance > 0);
  if (held.length === 0) return new Map();
  const lots = await creditsExpiringAfterOfAccountsQuery(db, held.map((a) => a.id), now).execute();
  if (lots.length === 0) return new Map();
  const dated = [...new Set(lots.map((lot) => Number(lot.account_id)))];
  const reversed = new Set((await reversedEntriesOfAccountsQuery(db, dated).execute()).map((r) => Number(r.reverses_id)));
  const lotsOf = new Map<number, Array<{ amount: number; expiresAt: number; id: number }>>();
  for (const lot of lots) {
    if (reversed.has(Number(lot.id))) continue;
    const accountId = Number(lot.account_id);
    const own = lotsOf.get(accountId) ?? [];
    if (own.length === 0) lotsOf.set(accountId, own);
    own.push({ id: Number(lot.id), amount: Number(lot.amount), expiresAt: Number(lot.expires_at) });
  }
  const days = new Map<number, string>();
  for (const account of held) {
    const own = (lotsOf.get(account.id) ?? []).sort((a, b) => a.expiresAt - b.expiresAt || a.id - b.id);
    const expiring = expiringByDay(own, account.balance, (at) => localDayOf(timeZone, at));
    const last = expiring.at(-1);
    if (last && expiring.reduce((sum, day) => sum + day.amount, 0) === account.balance) days.set(account.id, dayLabel(localDayOf(timeZone, last.at)));
  }
  return days;
}

/** Accounts' credits still to expire, through their index (test/storage/member-export-plans). */
export const creditsExpiringAfterOfAccountsQuery = (db: Kysely<DB>, accountIds: number[], now: number) =>
  db.selectFrom('ledger_entries').select(['id', 'account_id', 'amount', 'expires_at']).where('account_id', 'in', accountIds).where('amount', '>', 0).where('expires_at', '>', now);

/** The entries accounts' compensating entries reversed. */
export const reversedEntriesOfAccountsQuery = (db: Kysely<DB>, accountIds: number[]) => db.selectFrom('ledger_entries').select('reverses_id').where('account_id', 'in', accountIds).where('reverses_id', 'is not', null);
