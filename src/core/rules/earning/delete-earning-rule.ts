import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { findEarningRuleRow } from './earning-rule-store';

/**
 * Removes the rule. Nothing refers to an earning rule (an order and its ledger entries record the
 * points earned, not the rule), so the row goes; to keep a rule on record, archive it instead.
 */
export function deleteEarningRule(engine: Engine, scope: VendorScope, publicId: string): Promise<void> {
  return transact(engine, async (trx) => {
    const row = await findEarningRuleRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('earning_rule_not_found');
    await trx.deleteFrom('earning_rules').where('id', '=', row.id).execute();
  });
}
