import type { Kysely } from 'kysely';
import { activeCurrencies, activeCurrenciesIn, type CurrencyInfo, holderAccounts } from '../balances/balance-store';
import type { ProgramData } from '../program-cache/program-data';
import type { DB } from '../storage/schema';

export interface BalancesAfter {
  loyalty: Array<{ currency: CurrencyInfo; amount: number }>;
  quickPay: { currency: CurrencyInfo | null; amount: number };
}

/**
 * The customer's balances in every active currency (minor units / points), read in the transaction.
 * `vendorCurrencies`: the program's currencies (program-cache), when the caller holds them.
 */
export async function balancesAfter(
  db: Kysely<DB>,
  member: { vendorId: number; userId: number },
  quickPayCurrencyId: number | null,
  vendorCurrencies?: ProgramData['currencies'],
): Promise<BalancesAfter> {
  const [currencies, accounts] = await Promise.all([
    vendorCurrencies ? activeCurrenciesIn(vendorCurrencies) : activeCurrencies(db, member.vendorId),
    holderAccounts(db, member.vendorId, 'user', member.userId),
  ]);
  const quickPay = currencies.find((c) => c.id === quickPayCurrencyId) ?? null;
  return {
    loyalty: currencies.filter((c) => c.code === null).map((currency) => ({ currency, amount: accounts.get(currency.id)?.balance ?? 0 })),
    quickPay: { currency: quickPay, amount: quickPay ? (accounts.get(quickPay.id)?.balance ?? 0) : 0 },
  };
}
