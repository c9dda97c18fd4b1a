import type { Kysely } from 'kysely';
import { holderAccounts, upcomingLots } from '../balances/balance-store';
import { type ExpiringAmount, expiringByDay } from '../balances/expirations';
import type { DB } from '../storage/schema';
import type { BalancesAfter } from './balances-after';

/**
 * What is still to expire of each loyalty balance an order left (by currency id), for the balances
 * that have anything expiring: as the counter's retrieve reads it, since the order closed the
 * session and the counter cannot read the customer again (it showed "Nothing expiring" for the
 * points just earned).
 */
export async function loyaltyExpiringAfter(
  db: Kysely<DB>,
  member: { vendorId: number; userId: number },
  loyalty: BalancesAfter['loyalty'],
  now: number,
): Promise<Record<number, ExpiringAmount[]>> {
  const accounts = await holderAccounts(db, member.vendorId, 'user', member.userId);
  const held = loyalty.flatMap((b) => accounts.get(b.currency.id) ?? []);
  const lots = await upcomingLots(db, held.map((a) => a.accountId), now);
  const expiring: Record<number, ExpiringAmount[]> = {};
  for (const account of held) {
    const days = expiringByDay(lots.filter((lot) => lot.accountId === account.accountId), account.balance);
    if (days.length > 0) expiring[account.currencyId] = days;
  }
  return expiring;
}
