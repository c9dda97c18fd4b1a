import type { Kysely } from 'kysely';
import type { DB } from '../storage/schema';

/**
 * Whether the customer has a membership in a program other than `vendorId` (a former one counts).
 * One account serves every program it belongs to, and a contact on it opens all of them (a password
 * reset goes to its email), so a program's staff vouch for a new contact or passport number only
 * of a customer who is theirs alone; anyone else adds their own, in the app.
 */
export async function belongsToOtherPrograms(db: Kysely<DB>, userId: number, vendorId: number): Promise<boolean> {
  const other = await db.selectFrom('user_vendors').select('id').where('user_id', '=', userId).where('vendor_id', '!=', vendorId).limit(1).executeTakeFirst();
  return other !== undefined;
}
