import { type Engine, transact, type VendorScope } from '../../engine';
import { newPublicId, nextObjectId } from '../../storage/ids';
import { cleanName, cleanText, loyaltyCurrency, newWindowAndStatus, refuseTakenName } from '../rule-fields';
import type { SpendingRuleRecord } from './spending-rule';

export interface NewSpendingRule {
  name: string;
  summary?: string | null | undefined;
  description?: string | null | undefined;
  cost: number;
  /** `curr_` id of a loyalty currency of the vendor. */
  currency: string;
  startsAt?: string | null | undefined;
  endsAt?: string | null | undefined;
  status?: string | undefined;
}

export function createSpendingRule(engine: Engine, scope: VendorScope, input: NewSpendingRule): Promise<SpendingRuleRecord> {
  return transact(engine, async (trx) => {
    const name = cleanName(input.name);
    await refuseTakenName(trx, 'spending_rules', scope.vendorId, name);
    const currency = await loyaltyCurrency(trx, scope.vendorId, input.currency);
    const { startsAt, endsAt, status } = newWindowAndStatus(input);
    const now = engine.clock.now();
    const record: SpendingRuleRecord = {
      id: await nextObjectId(trx, engine.nodeId),
      publicId: newPublicId('rwd'),
      vendorId: scope.vendorId,
      currencyId: currency.id,
      currencyPublicId: currency.public_id,
      name,
      summary: cleanText(input.summary),
      description: cleanText(input.description),
      cost: input.cost,
      startsAt,
      endsAt,
      status,
      createdAt: now,
      updatedAt: now,
    };
    await trx
      .insertInto('spending_rules')
      .values({
        id: record.id,
        public_id: record.publicId,
        vendor_id: scope.vendorId,
        currency_id: currency.id,
        name,
        summary: record.summary,
        description: record.description,
        cost: record.cost,
        status,
        starts_at: startsAt,
        ends_at: endsAt,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .execute();
    return record;
  });
}
