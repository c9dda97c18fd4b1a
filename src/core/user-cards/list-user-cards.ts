import type { CustomerSession } from '../customers/sessions';
import type { Engine } from '../engine';
import { toUserCardRecord, type UserCardRecord } from './user-card';

/** GET /user/card/list: the cards linked to the customer with this vendor, newest link first. */
export async function listUserCards(engine: Engine, session: CustomerSession): Promise<UserCardRecord[]> {
  const rows = await engine.db
    .selectFrom('user_cards as u')
    .innerJoin('cards as c', 'c.id', 'u.card_id')
    .select(['u.id', 'u.status', 'u.created_at', 'u.updated_at', 'c.id as card_id', 'c.number', 'c.pin_sealed', 'c.status as card_status'])
    .where('u.user_id', '=', session.userId)
    .where('u.vendor_id', '=', session.vendorId)
    .where('u.removed_at', 'is', null)
    .where('c.deleted_at', 'is', null)
    .orderBy('u.created_at', 'desc')
    .orderBy('u.id', 'desc')
    .execute();
  return rows.map((row) =>
    toUserCardRecord(row, { id: row.card_id, number: row.number, pin_sealed: row.pin_sealed, status: row.card_status }, engine.sealer),
  );
}
