import { createHash, timingSafeEqual } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { cardNumberKey, cleanCardNumber } from '../cards/card';
import type { Engine } from '../engine';
import type { CardsTable, DB } from '../storage/schema';

export type CardRow = Selectable<CardsTable>;

/** A card of the vendor by its number (any letter case); deleted cards do not exist. */
export async function findVendorCard(db: Kysely<DB>, vendorId: number, number: string): Promise<CardRow> {
  const row = await db
    .selectFrom('cards')
    .selectAll()
    .where('vendor_id', '=', vendorId)
    .where('number_key', '=', cardNumberKey(cleanCardNumber(number)))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ServiceError('card_not_found', 'No card with that number exists.', 'number');
  return row;
}

/**
 * Proves the caller holds the card: when the card has a pin, the pin given must match (compared in
 * constant time). A card issued without a pin opens with its number alone; a pin sent for it is
 * ignored. Callers rate-limit attempts per client and per card number.
 */
export function unlockCard(engine: Engine, card: CardRow, pin: string | null | undefined): void {
  if (card.pin_sealed === null) return;
  if (pin === undefined || pin === null || pin === '') throw new ServiceError('invalid_card_pin', 'This card has a pin: send it with the number.', 'pin');
  if (!pinsMatch(engine.sealer.open(card.pin_sealed), pin)) throw new ServiceError('invalid_card_pin', undefined, 'pin');
}

/** Constant-time comparison (digests of equal length, so the time reveals neither content nor length). */
export function pinsMatch(stored: string, given: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(stored), digest(given));
}

/** The customer a card is linked to right now, if any. */
export function activeLinkOfCard(db: Kysely<DB>, cardId: number) {
  return db.selectFrom('user_cards').selectAll().where('card_id', '=', cardId).where('removed_at', 'is', null).executeTakeFirst();
}
