import type { Kysely } from 'kysely';
import type { DB } from '../storage/schema';

/**
 * Whether a program's staff (a counter, the back office) may give this customer a new contact or
 * passport number. One account serves every program it belongs to, and a contact on it opens all of
 * them (a password reset goes to its email), so: yes for a customer of this program alone; for one
 * another program knows too, only when this program registered them and the others only enrolled
 * them at a counter and hold nothing of theirs — no sale, no balance (a guest of this program that
 * another program's counter found by phone). Otherwise the customer adds their own, in the app.
 */
export async function mayVouchForContacts(db: Kysely<DB>, userId: number, vendorId: number): Promise<boolean> {
  const others = await db.selectFrom('user_vendors').select('counter_enrolled').where('user_id', '=', userId).where('vendor_id', '!=', vendorId).execute();
  if (others.length === 0) return true;
  if (others.some((membership) => Number(membership.counter_enrolled) === 0)) return false;
  const user = await db.selectFrom('users').select('first_vendor_id').where('id', '=', userId).executeTakeFirst();
  if (user === undefined || Number(user.first_vendor_id) !== vendorId) return false;
  // What another program's counter gave them (points, quick pay, a sale) would go with the account.
  const account = await db.selectFrom('ledger_accounts').select('id').where('holder_type', '=', 'user').where('holder_id', '=', userId).where('vendor_id', '!=', vendorId).limit(1).executeTakeFirst();
  const sale = await db.selectFrom('orders').select('id').where('user_id', '=', userId).where('vendor_id', '!=', vendorId).limit(1).executeTakeFirst();
  return account === undefined && sale === undefined;
}
