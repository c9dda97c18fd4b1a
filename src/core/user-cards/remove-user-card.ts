import { ServiceError } from '../../shared/errors';
import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';

export const UNLINKED = 'REMOVED';

/**
 * DELETE /user/card: unlinks one of the customer's cards. The row stays (status REMOVED, removed_at
 * set) for history; the card itself is untouched and can be linked again. Another customer's link
 * is a 404, like one that never existed.
 */
export function removeUserCard(engine: Engine, session: CustomerSession, userCardId: number): Promise<void> {
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    const result = await trx
      .updateTable('user_cards')
      .set({ status: UNLINKED, removed_at: now, updated_at: now })
      .where('id', '=', userCardId)
      .where('user_id', '=', session.userId)
      .where('vendor_id', '=', session.vendorId)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new ServiceError('user_card_not_found', undefined, 'user_card');
  });
}
