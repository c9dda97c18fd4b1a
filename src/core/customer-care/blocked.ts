import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { DB } from '../storage/schema';

/** Refuses a customer the program blocked: no check-in (counter, kiosk, scanner, app) and no order. */
export async function refuseBlockedCustomer(db: Kysely<DB>, vendorId: number, userId: number): Promise<void> {
  const link = await db.selectFrom('user_vendors').select('blocked_at').where('vendor_id', '=', vendorId).where('user_id', '=', userId).executeTakeFirst();
  if (link && link.blocked_at !== null) throw new ServiceError('customer_blocked');
}
