import { MAX_AMOUNT, MAX_DAYS } from '../../../shared/schemas/rules';
import { type Engine, transact, type VendorScope } from '../../engine';
import { wholeOrNull } from '../rule-fields';
import { loadProgramSettings, type ProgramSettingsRecord } from './program-settings';

export interface ProgramSettingsChanges {
  pointsExpiryDays?: number | null | undefined;
  referralPoints?: number | undefined;
}

/**
 * Changes only what was sent. The expiry applies to points earned from now on: each earning entry
 * carries its own expiry date when it is written, so points already earned keep theirs.
 */
export function updateProgramSettings(engine: Engine, scope: VendorScope, changes: ProgramSettingsChanges): Promise<ProgramSettingsRecord> {
  return transact(engine, async (trx) => {
    const current = await loadProgramSettings(trx, scope.vendorId);
    const next = { ...current };
    if (changes.pointsExpiryDays !== undefined) next.pointsExpiryDays = wholeOrNull(changes.pointsExpiryDays, 'points_expiry_days', 1, MAX_DAYS);
    if (changes.referralPoints !== undefined) next.referralPoints = wholeOrNull(changes.referralPoints, 'referral_points', 0, MAX_AMOUNT) ?? 0;
    if (changes.pointsExpiryDays === undefined && changes.referralPoints === undefined) return current;
    await trx
      .updateTable('vendors')
      .set({ points_expiry_days: next.pointsExpiryDays, referral_points: next.referralPoints, updated_at: engine.clock.now() })
      .where('id', '=', scope.vendorId)
      .execute();
    return next;
  });
}
