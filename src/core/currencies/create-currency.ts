import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { isUniqueViolation } from '../storage/errors';
import { newPublicId, nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { type CurrencyRecord, cleanCurrencyCode, cleanCurrencyName, currencyNameKey } from './currency';
import { currencyNameTaken } from './currency-store';

export interface NewCurrency {
  name: string;
  code?: string | null | undefined;
}

export function createCurrency(engine: Engine, scope: VendorScope, input: NewCurrency): Promise<CurrencyRecord> {
  return transact(engine, (trx) => addCurrency(trx, engine, scope, input));
}

/** The body of createCurrency, for callers that already hold a transaction (vendor set-up). */
export async function addCurrency(db: Kysely<DB>, engine: Engine, scope: VendorScope, input: NewCurrency): Promise<CurrencyRecord> {
  const name = cleanCurrencyName(input.name);
  const code = cleanCurrencyCode(input.code);
  const nameKey = currencyNameKey(name);
  if (await currencyNameTaken(db, scope.vendorId, nameKey)) throw new ServiceError('currency_name_taken', undefined, 'name');

  const now = engine.clock.now();
  const record: CurrencyRecord = {
    id: await nextObjectId(db, engine.nodeId),
    publicId: newPublicId('curr'),
    vendorId: scope.vendorId,
    name,
    code,
    status: 'ACTIVE',
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db
      .insertInto('currencies')
      .values({
        id: record.id,
        public_id: record.publicId,
        vendor_id: record.vendorId,
        name,
        name_key: nameKey,
        code,
        status: record.status,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .execute();
  } catch (error) {
    // Two writers on PostgreSQL can both pass the check above; the unique index decides.
    if (isUniqueViolation(error)) throw new ServiceError('currency_name_taken', undefined, 'name');
    throw error;
  }
  return record;
}
