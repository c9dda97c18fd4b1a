import { ServiceError } from '../../shared/errors';
import type { Engine, VendorScope } from '../engine';
import { programData } from '../program-cache/program-data';
import { type CurrencyRecord, toCurrencyRecord } from './currency';

/**
 * From the vendor's program data in memory (program-cache: reloaded when a write moved the vendor's
 * version). Another vendor's currency is reported exactly like a missing one: ids never leak across
 * vendors.
 */
export async function getCurrency(engine: Engine, scope: VendorScope, publicId: string): Promise<CurrencyRecord> {
  const { currencies } = await programData(engine.db, scope.vendorId);
  const row = currencies.find((currency) => currency.public_id === publicId && currency.deleted_at === null);
  if (!row) throw new ServiceError('currency_not_found');
  return toCurrencyRecord(row);
}
