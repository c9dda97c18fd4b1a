import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { isUniqueViolation } from '../storage/errors';
import { newPublicId, nextObjectId } from '../storage/ids';
import { type CardRecord, cardNumberKey, cleanCardNumber, serialiseCardData } from './card';
import { cardNumberTaken } from './card-store';
import type { DB } from '../storage/schema';

export interface NewCard {
  number: string;
  pin?: string | null | undefined;
  data?: Record<string, unknown> | null | undefined;
}

export function createCard(engine: Engine, scope: VendorScope, input: NewCard): Promise<CardRecord> {
  return transact(engine, (trx) => addCard(trx, engine, scope, input));
}

/** createCard's body, for a caller that already holds a transaction (the member import links the cards it makes). */
export async function addCard(trx: Kysely<DB>, engine: Engine, scope: VendorScope, input: NewCard): Promise<CardRecord> {
  const number = cleanCardNumber(input.number);
  const numberKey = cardNumberKey(number);
  if (await cardNumberTaken(trx, scope.vendorId, numberKey)) throw new ServiceError('card_number_taken', undefined, 'number');
  const data = serialiseCardData(input.data);
  const pin = input.pin ?? null;
  const now = engine.clock.now();
  const record: CardRecord = {
    id: await nextObjectId(trx, engine.nodeId),
    publicId: newPublicId('card'),
    vendorId: scope.vendorId,
    number,
    pin,
    data: JSON.parse(data) as Record<string, unknown>,
    status: 'ACTIVE',
    createdAt: now,
    updatedAt: now,
  };
  try {
    await trx
      .insertInto('cards')
      .values({
        id: record.id,
        public_id: record.publicId,
        vendor_id: scope.vendorId,
        number,
        number_key: numberKey,
        pin_sealed: pin === null ? null : engine.sealer.seal(pin),
        data,
        status: record.status,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ServiceError('card_number_taken', undefined, 'number');
    throw error;
  }
  return record;
}
