import { ServiceError } from '../../../shared/errors';
import type { Engine, VendorScope } from '../../engine';
import { type TierRecord, toTierRecord } from './tier';
import { findTierRow } from './tier-store';

/** Another vendor's tier is reported exactly like a missing one. */
export async function getTier(engine: Engine, scope: VendorScope, publicId: string): Promise<TierRecord> {
  const row = await findTierRow(engine.db, scope.vendorId, publicId);
  if (!row?.public_id) throw new ServiceError('tier_not_found');
  return toTierRecord({ ...row, public_id: row.public_id });
}
