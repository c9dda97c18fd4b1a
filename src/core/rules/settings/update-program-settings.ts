import { MAX_DAYS } from '../../../shared/schemas/rules';
import { type Engine, transact, type VendorScope } from '../../engine';
import { wholeOrNull } from '../rule-fields';
import { loadProgramSettings, type ProgramSettingsRecord } from './program-settings';

export interface ProgramSettingsChanges {
  pointsExpiryDays?: number | null | undefined;
}

/**
 * Changes only what was sent. The expiry applies to points earned from now on: each earning entry
 * carries its own expiry date when it is written, so points already earned keep theirs.
 */
export function updateProgramSettings(engine: Engine, scope: VendorScope, changes: ProgramSettingsChanges): Promise<ProgramSettingsRecord> {
  return transact(engine, async (trx) => {
    const current = await loadProgramSettings(trx, scope.vendorId);
    if (changes.pointsExpiryDays === undefined) return current;
    const pointsExpiryDays = wholeOrNull(changes.pointsExpiryDays, 'points_expiry_days', 1, MAX_DAYS);
    await trx.updateTable('vendors').set({ points_expiry_days: pointsExpiryDays, updated_at: engine.clock.now() }).where('id', '=', scope.vendorId).execute();
    return { ...current, pointsExpiryDays };
  });
}
