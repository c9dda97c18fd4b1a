import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { MAX_DAYS } from '../../../shared/schemas/rules';
import { cleanName, cleanText, lockVendor, refuseTakenName, wholeOrNull } from '../rule-fields';
import { type TierRecord, toTierRecord } from './tier';
import { findTierRow, tierThresholdTaken } from './tier-store';

export interface TierChanges {
  name?: string | undefined;
  summary?: string | null | undefined;
  description?: string | null | undefined;
  threshold?: number | undefined;
  windowDays?: number | null | undefined;
}

/**
 * Changes only what was sent. Members keep their tier until their standing is next evaluated
 * (when they earn); a changed threshold does not move anyone by itself.
 */
export function updateTier(engine: Engine, scope: VendorScope, publicId: string, changes: TierChanges): Promise<TierRecord> {
  return transact(engine, async (trx) => {
    await lockVendor(trx, engine, scope.vendorId);
    const row = await findTierRow(trx, scope.vendorId, publicId);
    if (!row?.public_id) throw new ServiceError('tier_not_found');
    const current = toTierRecord({ ...row, public_id: row.public_id });
    const next = { ...current };

    if (changes.name !== undefined) {
      next.name = cleanName(changes.name);
      await refuseTakenName(trx, 'tiers', scope.vendorId, next.name, current.id);
    }
    if (changes.summary !== undefined) next.summary = cleanText(changes.summary);
    if (changes.description !== undefined) next.description = cleanText(changes.description);
    if (changes.threshold !== undefined && changes.threshold !== current.threshold) {
      if (await tierThresholdTaken(trx, scope.vendorId, changes.threshold, current.id)) throw new ServiceError('tier_threshold_taken', undefined, 'threshold');
      next.threshold = changes.threshold;
    }
    if (changes.windowDays !== undefined) next.windowDays = wholeOrNull(changes.windowDays, 'window_days', 1, MAX_DAYS);

    next.updatedAt = engine.clock.now();
    await trx
      .updateTable('tiers')
      .set({ name: next.name, summary: next.summary, description: next.description, threshold: next.threshold, window_days: next.windowDays, updated_at: next.updatedAt })
      .where('id', '=', current.id)
      .execute();
    return next;
  });
}
