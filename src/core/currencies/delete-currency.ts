import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { findCurrencyRow } from './currency-store';

/**
 * Deletes a currency for its clients (it is 404 afterwards and its name is free again). The row is
 * kept, marked deleted, because ledger entries may point at it and the ledger is never rewritten.
 */
export function deleteCurrency(engine: Engine, scope: VendorScope, publicId: string): Promise<void> {
  return transact(engine, async (trx) => {
    const row = await findCurrencyRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('currency_not_found');
    const now = engine.clock.now();
    await trx.updateTable('currencies').set({ deleted_at: now, updated_at: now }).where('id', '=', row.id).execute();
  });
}
