import { ServiceError } from '../../shared/errors';
import type { CustomerSession } from '../customers/sessions';
import type { Engine } from '../engine';
import { currencyInfo, type HeldBalance, holderAccounts } from './balance-store';

/**
 * GET /user/quick-pay/balance: the customer's stored value in the vendor's quick-pay currency
 * (vendors.quick_pay_currency_id); 0 before the customer's first reload opens the account.
 */
export async function quickPayBalance(engine: Engine, session: CustomerSession): Promise<HeldBalance> {
  const currency = await engine.db
    .selectFrom('vendors as v')
    .innerJoin('currencies as c', 'c.id', 'v.quick_pay_currency_id')
    .select(['c.id', 'c.name', 'c.code'])
    .where('v.id', '=', session.vendorId)
    .where('c.vendor_id', '=', session.vendorId)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!currency) throw new ServiceError('quick_pay_not_offered');
  const accounts = await holderAccounts(engine.db, session.vendorId, 'user', session.userId);
  return { currency: currencyInfo(currency), balance: accounts.get(currency.id)?.balance ?? 0 };
}
