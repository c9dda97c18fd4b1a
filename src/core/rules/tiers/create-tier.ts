import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { newPublicId, nextObjectId } from '../../storage/ids';
import { MAX_DAYS } from '../../../shared/schemas/rules';
import { cleanName, cleanText, lockVendor, refuseTakenName, wholeOrNull } from '../rule-fields';
import type { TierRecord } from './tier';
import { tierThresholdTaken } from './tier-store';

export interface NewTier {
  name: string;
  summary?: string | null | undefined;
  description?: string | null | undefined;
  threshold: number;
  windowDays?: number | null | undefined;
}

/** Thresholds are unique per vendor: two tiers reached by the same points would be ambiguous. */
export function createTier(engine: Engine, scope: VendorScope, input: NewTier): Promise<TierRecord> {
  return transact(engine, async (trx) => {
    const name = cleanName(input.name);
    const windowDays = wholeOrNull(input.windowDays ?? null, 'window_days', 1, MAX_DAYS);
    await lockVendor(trx, engine, scope.vendorId);
    await refuseTakenName(trx, 'tiers', scope.vendorId, name);
    if (await tierThresholdTaken(trx, scope.vendorId, input.threshold)) throw new ServiceError('tier_threshold_taken', undefined, 'threshold');
    const now = engine.clock.now();
    const record: TierRecord = {
      id: await nextObjectId(trx, engine.nodeId),
      publicId: newPublicId('tier'),
      vendorId: scope.vendorId,
      name,
      summary: cleanText(input.summary),
      description: cleanText(input.description),
      threshold: input.threshold,
      windowDays,
      createdAt: now,
      updatedAt: now,
    };
    await trx
      .insertInto('tiers')
      .values({
        id: record.id,
        public_id: record.publicId,
        vendor_id: scope.vendorId,
        name,
        summary: record.summary,
        description: record.description,
        threshold: record.threshold,
        window_days: record.windowDays,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return record;
  });
}
