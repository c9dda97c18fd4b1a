import { ServiceError } from '../../../shared/errors';
import type { Engine, VendorScope } from '../../engine';
import { vendorMoneyDigits } from '../../currencies/vendor-money';
import { type EarningRuleRecord, toEarningRuleRecord } from './earning-rule';
import { findEarningRuleRow } from './earning-rule-store';

/** Another vendor's rule is reported exactly like a missing one. */
export async function getEarningRule(engine: Engine, scope: VendorScope, publicId: string): Promise<EarningRuleRecord> {
  const row = await findEarningRuleRow(engine.db, scope.vendorId, publicId);
  if (!row?.public_id) throw new ServiceError('earning_rule_not_found');
  return toEarningRuleRecord({ ...row, public_id: row.public_id }, await vendorMoneyDigits(engine.db, scope.vendorId));
}
