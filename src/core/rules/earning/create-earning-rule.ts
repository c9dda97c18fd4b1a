import { type Engine, transact, type VendorScope } from '../../engine';
import { newPublicId, nextObjectId } from '../../storage/ids';
import { MAX_AMOUNT } from '../../../shared/schemas/rules';
import { cleanName, loyaltyCurrency, refuseTakenName, newWindowAndStatus, toWholeMinorUnits, wholeOrNull } from '../rule-fields';
import { vendorMoneyDigits } from '../../currencies/vendor-money';
import { type EarningRuleRecord, parseRounding } from './earning-rule';

export interface NewEarningRule {
  name: string;
  /** `curr_` id of a loyalty currency of the vendor. */
  currency: string;
  points: number;
  /** Subtotal per award, in major units of the vendor's quick-pay currency. */
  perAmount: number;
  rounding?: string | undefined;
  maxAward?: number | null | undefined;
  startsAt?: string | null | undefined;
  endsAt?: string | null | undefined;
  status?: string | undefined;
}

export function createEarningRule(engine: Engine, scope: VendorScope, input: NewEarningRule): Promise<EarningRuleRecord> {
  return transact(engine, async (trx) => {
    const name = cleanName(input.name);
    await refuseTakenName(trx, 'earning_rules', scope.vendorId, name);
    const currency = await loyaltyCurrency(trx, scope.vendorId, input.currency);
    const moneyDigits = await vendorMoneyDigits(trx, scope.vendorId);
    const perAmount = toWholeMinorUnits(input.perAmount, moneyDigits, 'per_amount');
    const rounding = input.rounding === undefined ? 'floor' : parseRounding(input.rounding);
    const { startsAt, endsAt, status } = newWindowAndStatus(input);
    const maxAward = wholeOrNull(input.maxAward ?? null, 'max_award', 1, MAX_AMOUNT);

    const now = engine.clock.now();
    const record: EarningRuleRecord = {
      id: await nextObjectId(trx, engine.nodeId),
      publicId: newPublicId('erul'),
      vendorId: scope.vendorId,
      currencyId: currency.id,
      currencyPublicId: currency.public_id,
      name,
      points: input.points,
      perAmount,
      moneyDigits,
      rounding,
      maxAward,
      startsAt,
      endsAt,
      status,
      createdAt: now,
      updatedAt: now,
    };
    await trx
      .insertInto('earning_rules')
      .values({
        id: record.id,
        public_id: record.publicId,
        vendor_id: scope.vendorId,
        currency_id: currency.id,
        name,
        points: record.points,
        per_amount: perAmount,
        rounding,
        max_award: record.maxAward,
        starts_at: startsAt,
        ends_at: endsAt,
        status,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return record;
  });
}
