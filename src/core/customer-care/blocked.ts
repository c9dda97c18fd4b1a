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

/** Whether the program blocked the customer (their current membership). */
export async function isBlockedIn(db: Kysely<DB>, vendorId: number, userId: number): Promise<boolean> {
  const [link] = await blockedAt(db, userId, vendorId);
  return link !== undefined && link.blocked_at !== null;
}

/**
 * Refuses a card the customer would pay with at a program that blocked them (reload, auto reload,
 * eGift, adding a card): a fraudster must not turn stolen cards into stored value or gifts. What
 * they already hold stays readable.
 */
export async function refuseBlockedPayer(db: Kysely<DB>, vendorId: number, userId: number): Promise<void> {
  if (await isBlockedIn(db, vendorId, userId)) {
    throw new ServiceError('customer_blocked', 'This account is blocked in this program: no card can be charged or added. Please contact the program.');
  }
}
