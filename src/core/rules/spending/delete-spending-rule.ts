import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { findSpendingRuleRow } from './spending-rule-store';

/** The reward is 404 afterwards; the row stays, marked deleted, because orders record its redemptions. */
export function deleteSpendingRule(engine: Engine, scope: VendorScope, publicId: string): Promise<void> {
  return transact(engine, async (trx) => {
    const row = await findSpendingRuleRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('reward_not_found');
    const now = engine.clock.now();
    await trx.updateTable('spending_rules').set({ deleted_at: now, updated_at: now }).where('id', '=', row.id).execute();
  });
}
