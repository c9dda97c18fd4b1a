import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { DB } from '../storage/schema';

/** The current membership of a customer, as the back office reads and changes it. */
export interface CurrentMembership {
  id: number;
  flagged: number;
  blocked_at: number | null;
  blocked_reason: string | null;
}

/**
 * A customer the staff member may see: a member of the program, and for a store manager one who
 * checked in or ordered at their store. Returns their current membership (one they left stays as a
 * removed row, and is not it).
 */
export async function checkCustomerAccess(db: Kysely<DB>, vendorId: number, onlyStoreId: number | null, userId: number): Promise<CurrentMembership> {
  const member = await db
    .selectFrom('user_vendors')
    .select(['id', 'flagged', 'blocked_at', 'blocked_reason'])
    .where('vendor_id', '=', vendorId)
    .where('user_id', '=', userId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  if (!member) throw new ServiceError('customer_not_found');
  if (onlyStoreId === null) return member;
  const seen =
    (await db.selectFrom('pos_sessions').select('id').where('vendor_id', '=', vendorId).where('store_id', '=', onlyStoreId).where('user_id', '=', userId).limit(1).executeTakeFirst()) ??
    (await db.selectFrom('orders').select('id').where('vendor_id', '=', vendorId).where('store_id', '=', onlyStoreId).where('user_id', '=', userId).limit(1).executeTakeFirst());
  if (!seen) throw new ServiceError('forbidden', 'A store manager sees only the customers of their own store.');
  return member;
}
