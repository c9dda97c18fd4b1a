import { ServiceError } from '../../shared/errors';
import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';
import { isUniqueViolation } from '../storage/errors';
import { nextObjectId } from '../storage/ids';
import { recordUserCardCreated } from '../webhooks/events';
import { activeLinkOfCard, findVendorCard, unlockCard } from './card-access';
import { toUserCardRecord, type UserCardRecord } from './user-card';

export const LINKED = 'ACTIVE';

/**
 * POST /user/card/add: links an existing card of the vendor to the customer. The pin must match
 * when the card has one; a card linked to someone else is a 409 (said only to whoever proved they
 * hold the card); linking one's own card again answers the existing link. Only ACTIVE cards link.
 *
 * A balance the card holds itself (a gift card's ledger account, holder_type 'card') stays there:
 * moving it to the customer is the in-store issue's job.
 */
export async function addUserCard(engine: Engine, session: CustomerSession, input: { number: string; pin?: string | null | undefined }): Promise<UserCardRecord> {
  try {
    return await link(engine, session, input);
  } catch (error) {
    // Two links raced (PostgreSQL): the unique index on live links refused one; look again.
    if (isUniqueViolation(error)) return link(engine, session, input);
    throw error;
  }
}

function link(engine: Engine, session: CustomerSession, input: { number: string; pin?: string | null | undefined }): Promise<UserCardRecord> {
  return transact(engine, async (trx) => {
    const card = await findVendorCard(trx, session.vendorId, input.number);
    unlockCard(engine, card, input.pin);
    const existing = await activeLinkOfCard(trx, card.id);
    if (existing) {
      if (existing.user_id === session.userId) return toUserCardRecord(existing, card, engine.sealer);
      throw new ServiceError('card_already_linked', undefined, 'number');
    }
    if (card.status !== 'ACTIVE') throw new ServiceError('card_not_active', `This card is ${card.status.toLowerCase()}: only active cards can be linked.`, 'number');
    const now = engine.clock.now();
    const row = {
      id: await nextObjectId(trx, engine.nodeId),
      user_id: session.userId,
      vendor_id: session.vendorId,
      card_id: card.id,
      status: LINKED,
      created_at: now,
      updated_at: now,
      removed_at: null,
    };
    await trx.insertInto('user_cards').values(row).execute();
    await recordUserCardCreated(trx, engine, { id: row.id, vendorId: row.vendor_id, userId: row.user_id, status: row.status, createdAt: now, updatedAt: now, card: { id: card.id, number: card.number } });
    return toUserCardRecord(row, card, engine.sealer);
  });
}
