import type { Engine } from '../engine';
import { type ProgramData, programData } from '../program-cache/program-data';
import { activeCurrenciesIn, type CurrencyInfo, type HolderAccount, holderAccounts, upcomingLots } from './balance-store';
import { type ExpiringAmount, expiringByDay } from './expirations';

export interface CurrencyBalance {
  currency: CurrencyInfo;
  /** The vendor's quick-pay (stored value) currency. */
  quickPay: boolean;
  /** Minor units; 0 when the customer has no account in the currency yet. */
  balance: number;
  expiring: ExpiringAmount[];
}

/**
 * GET /user/currency/balance: one entry per ACTIVE currency of the vendor, with the customer's
 * balance and upcoming expirations (ledger credits with a future expires_at, by UTC day).
 */
export async function customerBalances(engine: Engine, session: { vendorId: number; userId: number }): Promise<CurrencyBalance[]> {
  return balancesIn(engine, await programData(engine.db, session.vendorId), session);
}

/** customerBalances with the vendor's program data (and possibly the customer's accounts, holderAccounts) already in hand. */
export async function balancesIn(engine: Engine, program: ProgramData, session: { vendorId: number; userId: number }, accountsRead?: Map<number, HolderAccount>): Promise<CurrencyBalance[]> {
  const currencies = activeCurrenciesIn(program.currencies);
  const accounts = accountsRead ?? (await holderAccounts(engine.db, session.vendorId, 'user', session.userId));
  const held = currencies.map((c) => accounts.get(c.id)).filter((a) => a !== undefined);
  const lots = await upcomingLots(
    engine.db,
    held.map((a) => a.accountId),
    engine.clock.now(),
  );
  return currencies.map((currency) => {
    const account = accounts.get(currency.id);
    const balance = account?.balance ?? 0;
    const own = account ? lots.filter((lot) => lot.accountId === account.accountId) : [];
    return { currency, quickPay: program.vendor.quick_pay_currency_id === currency.id, balance, expiring: expiringByDay(own, balance) };
  });
}
