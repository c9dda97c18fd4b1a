import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { prepared } from '../storage/prepared';
import type { DB } from '../storage/schema';

// The customer's current membership: its unique index (user_id, vendor_id) covers current links
// only, and without `removed_at is null` SQLite read every member of the vendor (issue 13).
const blockedAt = prepared((db, userId: number, vendorId: number) =>
  db.selectFrom('user_vendors').select('blocked_at').where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('removed_at', 'is', null),
);

/** Refuses a customer the program blocked: no check-in (counter, kiosk, scanner, app) and no order. */
export async function refuseBlockedCustomer(db: Kysely<DB>, vendorId: number, userId: number): Promise<void> {
  const [link] = await blockedAt(db, userId, vendorId);
  refuseBlockedLink(link);
}

/** refuseBlockedCustomer with the customer's current membership (or its absence) already read. */
export function refuseBlockedLink(link: { blocked_at: number | null } | undefined): void {
  if (link && link.blocked_at !== null) throw new ServiceError('customer_blocked');
}
