import { ServiceError } from '../../../shared/errors';
import type { Engine, VendorScope } from '../../engine';
import { type SpendingRuleRecord, toSpendingRuleRecord } from './spending-rule';
import { findSpendingRuleRow } from './spending-rule-store';

/** Another vendor's reward is reported exactly like a missing one. */
export async function getSpendingRule(engine: Engine, scope: VendorScope, publicId: string): Promise<SpendingRuleRecord> {
  const row = await findSpendingRuleRow(engine.db, scope.vendorId, publicId);
  if (!row) throw new ServiceError('reward_not_found');
  return toSpendingRuleRecord(row);
}
