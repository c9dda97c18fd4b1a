import type { Kysely } from 'kysely';
import { overdraftInSubject, overdraftSubject } from '../../shared/exception-subject';
import type { DB } from '../storage/schema';

// An offline overdraft staff resolved by hand while its balance was still below zero (they wrote
// the debt off in their books, or agreed it with the customer) stays resolved: the next push that
// touches the account (points earned, another sale) is no news. Staff hear again only when the
// balance goes further below what it was when they resolved it (a new offline spend), or when it
// was settled and later went below zero again — a new debt. Until the fifteenth round any push
// touching the still negative account opened a new exception ("Points spent … left -16 Points"
// after a sale that earned 5).
//
// The balance at the resolution is kept in the exception's message_data (`balance_when_resolved`,
// beside what the message says: no migration); a credit that settles the balance removes it.

const FIELD = 'balance_when_resolved';

/** On resolving an overdraft by hand: remember its balance then, if still below zero. */
export async function rememberBalanceWhenResolved(trx: Kysely<DB>, exception: { id: number; vendorId: number; subject: string; messageData: string | null }): Promise<void> {
  const about = overdraftInSubject(exception.subject);
  // An exception recorded before central kept its data, or before per-currency ones, has nowhere to keep it.
  if (!about || exception.messageData === null) return;
  const account = await trx
    .selectFrom('ledger_accounts')
    .select('balance')
    .where('vendor_id', '=', exception.vendorId)
    .where('holder_type', '=', 'user')
    .where('holder_id', '=', about.userId)
    .where('currency_id', '=', about.currencyId)
    .executeTakeFirst();
  const balance = Number(account?.balance ?? 0);
  if (balance >= 0) return;
  const said = JSON.parse(exception.messageData) as { params?: { balance?: unknown } } & Record<string, unknown>;
  // Staff accept the debt they were shown, never more: spends that landed while the exception was
  // open (which opened nothing new) deepen it past what its message says, and are news.
  const shown = typeof said.params?.balance === 'number' ? said.params.balance : balance;
  const data = { ...said, [FIELD]: Math.max(balance, shown) };
  await trx.updateTable('sync_exceptions').set({ message_data: JSON.stringify(data) }).where('id', '=', exception.id).execute();
}

/** Whether staff resolved this currency's overdraft by hand at a balance no higher than `balance` (nothing new to tell). */
export async function overdraftAlreadyAccepted(trx: Kysely<DB>, vendorId: number, userId: number, currencyId: number, balance: number): Promise<boolean> {
  const last = await lastResolved(trx, vendorId, userId, currencyId);
  const accepted = last === undefined ? undefined : acceptedBalance(last.message_data);
  return accepted !== undefined && balance >= accepted;
}

/** The balance is settled (zero or more): a resolved overdraft's accepted balance no longer stands. */
export async function forgetAcceptedOverdraft(db: Kysely<DB>, vendorId: number, userId: number, currencyId: number): Promise<void> {
  const last = await lastResolved(db, vendorId, userId, currencyId);
  if (!last || acceptedBalance(last.message_data) === undefined) return;
  const { [FIELD]: _forgotten, ...data } = JSON.parse(last.message_data!) as Record<string, unknown>;
  await db.updateTable('sync_exceptions').set({ message_data: JSON.stringify(data) }).where('id', '=', last.id).execute();
}

/** The latest resolved overdraft of this customer's currency (only the latest can hold an accepted balance). */
async function lastResolved(db: Kysely<DB>, vendorId: number, userId: number, currencyId: number) {
  return db
    .selectFrom('sync_exceptions')
    .select(['id', 'message_data'])
    .where('vendor_id', '=', vendorId)
    .where('kind', '=', 'offline_overdraft')
    .where('subject', '=', overdraftSubject(userId, currencyId))
    .where('resolved_at', 'is not', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

function acceptedBalance(messageData: string | null): number | undefined {
  if (messageData === null) return undefined;
  const value = (JSON.parse(messageData) as Record<string, unknown>)[FIELD];
  return typeof value === 'number' ? value : undefined;
}
