import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { MAX_AMOUNT } from '../../../shared/schemas/rules';
import { applyWindowAndStatus, cleanName, loyaltyCurrency, refuseTakenName, toWholeMinorUnits, wholeOrNull } from '../rule-fields';
import { vendorMoneyDigits } from '../../currencies/vendor-money';
import { type EarningRuleRecord, parseRounding, toEarningRuleRecord } from './earning-rule';
import { findEarningRuleRow } from './earning-rule-store';

export interface EarningRuleChanges {
  name?: string | undefined;
  currency?: string | undefined;
  points?: number | undefined;
  perAmount?: number | undefined;
  rounding?: string | undefined;
  maxAward?: number | null | undefined;
  startsAt?: string | null | undefined;
  endsAt?: string | null | undefined;
  status?: string | undefined;
}

/** Changes only what was sent; null clears max_award, starts_at and ends_at. Orders use the rule as it is when they are placed. */
export function updateEarningRule(engine: Engine, scope: VendorScope, publicId: string, changes: EarningRuleChanges): Promise<EarningRuleRecord> {
  return transact(engine, async (trx) => {
    const row = await findEarningRuleRow(trx, scope.vendorId, publicId);
    if (!row?.public_id) throw new ServiceError('earning_rule_not_found');
    const moneyDigits = await vendorMoneyDigits(trx, scope.vendorId);
    const current = toEarningRuleRecord({ ...row, public_id: row.public_id }, moneyDigits);
    const next = { ...current };

    if (changes.name !== undefined) {
      next.name = cleanName(changes.name);
      await refuseTakenName(trx, 'earning_rules', scope.vendorId, next.name, current.id);
    }
    if (changes.currency !== undefined) {
      const currency = await loyaltyCurrency(trx, scope.vendorId, changes.currency);
      next.currencyId = currency.id;
      next.currencyPublicId = currency.public_id;
    }
    if (changes.points !== undefined) next.points = changes.points;
    if (changes.perAmount !== undefined) next.perAmount = toWholeMinorUnits(changes.perAmount, moneyDigits, 'per_amount');
    if (changes.rounding !== undefined) next.rounding = parseRounding(changes.rounding);
    if (changes.maxAward !== undefined) next.maxAward = wholeOrNull(changes.maxAward, 'max_award', 1, MAX_AMOUNT);
    applyWindowAndStatus(current, next, changes);

    next.updatedAt = engine.clock.now();
    await trx
      .updateTable('earning_rules')
      .set({
        name: next.name,
        currency_id: next.currencyId,
        points: next.points,
        per_amount: next.perAmount,
        rounding: next.rounding,
        max_award: next.maxAward,
        starts_at: next.startsAt,
        ends_at: next.endsAt,
        status: next.status,
        updated_at: next.updatedAt,
      })
      .where('id', '=', current.id)
      .execute();
    return next;
  });
}
