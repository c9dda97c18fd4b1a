import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { lockVendor } from '../rule-fields';
import { findTierRow, otherTiers } from './tier-store';

/**
 * Removes a tier. Its members move down to the tier below it (the highest lower threshold: they
 * reached more than that), or, when it was the lowest, to the new lowest tier, where every new
 * member starts; their tier_since becomes now. A program keeps at least one tier (409 last_tier).
 */
export function deleteTier(engine: Engine, scope: VendorScope, publicId: string): Promise<void> {
  return transact(engine, async (trx) => {
    await lockVendor(trx, engine, scope.vendorId);
    const row = await findTierRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('tier_not_found');
    const others = await otherTiers(trx, scope.vendorId, row.id);
    const lowest = others[0];
    if (!lowest) throw new ServiceError('last_tier');
    const below = others.filter((tier) => tier.threshold < row.threshold).at(-1);
    const target = below ?? lowest;

    const now = engine.clock.now();
    // Every row pointing at the tier moves, including memberships the customer deleted: the
    // foreign key keeps them pointing at a tier that exists.
    await trx.updateTable('user_vendors').set({ tier_id: target.id, tier_since: now, updated_at: now }).where('tier_id', '=', row.id).execute();
    await trx.deleteFrom('tiers').where('id', '=', row.id).execute();
  });
}
