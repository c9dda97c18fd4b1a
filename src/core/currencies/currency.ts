import type { Selectable } from 'kysely';
import { isIsoCurrencyCode } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import type { ObjectStatus } from '../../shared/schemas/common';
import type { CurrenciesTable } from '../storage/schema';

export interface CurrencyRecord {
  id: number;
  publicId: string;
  vendorId: number;
  name: string;
  code: string | null;
  status: ObjectStatus;
  createdAt: number;
  updatedAt: number;
}

export function toCurrencyRecord(row: Selectable<CurrenciesTable>): CurrencyRecord {
  return {
    id: row.id,
    publicId: row.public_id,
    vendorId: row.vendor_id,
    name: row.name,
    code: row.code,
    status: row.status as ObjectStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function cleanCurrencyName(name: string): string {
  const clean = name.trim().replace(/\s+/g, ' ');
  if (clean.length === 0) throw new ServiceError('validation_failed', 'name must not be empty.', 'name');
  return clean;
}

/** Names are unique per vendor without regard to case or Unicode form: "Points" and "points" clash. */
export function currencyNameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/** ISO 4217, any letter case in, upper case stored; empty or null means a loyalty currency. */
export function cleanCurrencyCode(code: string | null | undefined): string | null {
  if (code === undefined || code === null || code.trim() === '') return null;
  const upper = code.trim().toUpperCase();
  if (!isIsoCurrencyCode(upper)) throw new ServiceError('invalid_currency_code', `"${code}" is not an ISO 4217 currency code.`, 'code');
  return upper;
}
