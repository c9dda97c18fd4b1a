import type { Kysely } from 'kysely';
import type { DB } from '../storage/schema';

/**
 * The program's time zone. A program has no zone of its own: its days (the dashboard's and the
 * period statement's program-wide, the last day of an imported `points_expire_on`) are its first
 * store's (`stores.time_zone`, the lowest id), and UTC while it has no store.
 */
export async function programTimeZone(db: Kysely<DB>, vendorId: number): Promise<string> {
  const firstStore = await db.selectFrom('stores').select('time_zone').where('vendor_id', '=', vendorId).orderBy('id').limit(1).executeTakeFirst();
  return firstStore?.time_zone ?? 'UTC';
}
