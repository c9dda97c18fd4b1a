import type { Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { ObjectStatus } from '../../shared/schemas/common';
import type { Sealer } from '../credentials/secrets';
import type { CardsTable } from '../storage/schema';

export interface CardRecord {
  id: number;
  publicId: string;
  vendorId: number;
  number: string;
  pin: string | null;
  data: Record<string, unknown>;
  status: ObjectStatus;
  createdAt: number;
  updatedAt: number;
}

export const MAX_CARD_DATA_BYTES = 16 * 1024;

/** The columns a card record is made of. */
export type CardRow = Pick<Selectable<CardsTable>, 'id' | 'public_id' | 'vendor_id' | 'number' | 'pin_sealed' | 'data' | 'status' | 'created_at' | 'updated_at'>;

export function toCardRecord(row: CardRow, sealer: Sealer): CardRecord {
  return {
    id: row.id,
    publicId: row.public_id,
    vendorId: row.vendor_id,
    number: row.number,
    pin: row.pin_sealed === null ? null : sealer.open(row.pin_sealed),
    data: JSON.parse(row.data) as Record<string, unknown>,
    status: row.status as ObjectStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Letters and digits only, kept as given; lookups and uniqueness ignore letter case. */
export function cleanCardNumber(number: string): string {
  const clean = number.trim();
  if (!/^[A-Za-z0-9]{1,64}$/.test(clean)) throw new ServiceError('invalid_card_number', undefined, 'number');
  return clean;
}

export function cardNumberKey(number: string): string {
  return number.toUpperCase();
}

export function serialiseCardData(data: Record<string, unknown> | null | undefined): string {
  const text = JSON.stringify(data ?? {});
  if (Buffer.byteLength(text) > MAX_CARD_DATA_BYTES) {
    throw new ServiceError('validation_failed', `data must be at most ${MAX_CARD_DATA_BYTES / 1024} KiB of JSON.`, 'data');
  }
  return text;
}
