import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';
import { isUniqueViolation } from '../storage/errors';
import { findVendorCard, unlockCard } from './card-access';
import { linkCard } from './link-card';
import { toUserCardRecord, type UserCardRecord } from './user-card';

/**
 * POST /user/card/add: links an existing card of the vendor to the customer. The pin must match
 * when the card has one; the rules of linking (someone else's card, inactive cards, value the card
 * carries moving to the customer) are linkCard's.
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
    const { link } = await linkCard(trx, engine, { vendorId: session.vendorId, userId: session.userId, card, storeId: null });
    return toUserCardRecord(link, card, engine.sealer);
  });
}
