import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { refuseChangingTierCurrency } from '../rules/tiers/tier-currency';
import { currencyHoldsBalances, findCurrencyRow } from './currency-store';
import { lockProgramMoney } from './program-money';

/**
 * Deletes a currency for its clients (it is 404 afterwards and its name is free again). The row is
 * kept, marked deleted, because ledger entries may point at it and the ledger is never rewritten.
 * Value is never hidden by a delete: the program's quick-pay currency, and any currency a customer
 * or card holds a balance in, are 409 `currency_in_use` (archiving stops their use and keeps what
 * is held visible). So is the currency the program's tiers count (choose another for tiers first).
 */
export function deleteCurrency(engine: Engine, scope: VendorScope, publicId: string): Promise<void> {
  return transact(engine, async (trx) => {
    // The vendor row first, as a change of the tier currency (update-program-settings.ts) and of a
    // code take it: on PostgreSQL the checks below then read what such a writer committed, so the
    // tiers never count a deleted currency; and no money movement commits beside the balance check.
    await lockProgramMoney(trx, engine.dialect, scope.vendorId);
    const row = await findCurrencyRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('currency_not_found');
    const vendor = await trx.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', scope.vendorId).executeTakeFirstOrThrow();
    if (vendor.quick_pay_currency_id === row.id) {
      throw new ServiceError('currency_in_use', "This is the program's quick-pay currency, so it cannot be deleted: archive it to stop quick pay.");
    }
    await refuseChangingTierCurrency(trx, scope.vendorId, row.id);
    if (await currencyHoldsBalances(trx, row.id)) {
      throw new ServiceError('currency_in_use', 'Customers or cards hold balances in this currency, so it cannot be deleted: archive it to stop its use.');
    }
    const now = engine.clock.now();
    await trx.updateTable('currencies').set({ deleted_at: now, updated_at: now }).where('id', '=', row.id).execute();
  });
}
