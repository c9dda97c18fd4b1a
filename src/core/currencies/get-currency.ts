import { ServiceError } from '../../shared/errors';
import type { Engine, VendorScope } from '../engine';
import { type CurrencyRecord, toCurrencyRecord } from './currency';
import { findCurrencyRow } from './currency-store';

/** Another vendor's currency is reported exactly like a missing one: ids never leak across vendors. */
export async function getCurrency(engine: Engine, scope: VendorScope, publicId: string): Promise<CurrencyRecord> {
  const row = await findCurrencyRow(engine.db, scope.vendorId, publicId);
  if (!row) throw new ServiceError('currency_not_found');
  return toCurrencyRecord(row);
}
