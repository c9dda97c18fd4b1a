import type { Kysely } from 'kysely';
import type { DB } from '../storage/schema';

/**
 * The programs the customer belongs to now, `thisVendorId` first. A change to the person's own
 * fields (name, contacts, the account's status) is every program's copy, so each hears of it.
 */
export async function programsOfPerson(db: Kysely<DB>, userId: number, thisVendorId: number): Promise<number[]> {
  const rows = await db.selectFrom('user_vendors').select('vendor_id').where('user_id', '=', userId).where('removed_at', 'is', null).execute();
  return [thisVendorId, ...rows.map((row) => Number(row.vendor_id)).filter((id) => id !== thisVendorId)];
}
