import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { DB } from '../../storage/schema';

/** Program-wide settings of the rules a vendor manages. */
export interface ProgramSettingsRecord {
  /** Earned points expire this many days after they were earned; null: never. */
  pointsExpiryDays: number | null;
  /** Points a member gets when someone joins through their referral link; 0: none. */
  referralPoints: number;
}

export async function loadProgramSettings(db: Kysely<DB>, vendorId: number): Promise<ProgramSettingsRecord> {
  const row = await db.selectFrom('vendors').select(['points_expiry_days', 'referral_points']).where('id', '=', vendorId).executeTakeFirst();
  if (!row) throw new ServiceError('vendor_not_found');
  return { pointsExpiryDays: row.points_expiry_days, referralPoints: Number(row.referral_points) };
}
