import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { applyWindowAndStatus, cleanName, cleanText, loyaltyCurrency, refuseTakenName } from '../rule-fields';
import { type SpendingRuleRecord, toSpendingRuleRecord } from './spending-rule';
import { findSpendingRuleRow } from './spending-rule-store';

export interface SpendingRuleChanges {
  name?: string | undefined;
  summary?: string | null | undefined;
  description?: string | null | undefined;
  cost?: number | undefined;
  currency?: string | undefined;
  startsAt?: string | null | undefined;
  endsAt?: string | null | undefined;
  status?: string | undefined;
}

/** Changes only what was sent; null clears starts_at, ends_at, summary and description. */
export function updateSpendingRule(engine: Engine, scope: VendorScope, publicId: string, changes: SpendingRuleChanges): Promise<SpendingRuleRecord> {
  return transact(engine, async (trx) => {
    const row = await findSpendingRuleRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('reward_not_found');
    const current = toSpendingRuleRecord(row);
    const next = { ...current };

    if (changes.name !== undefined) {
      next.name = cleanName(changes.name);
      await refuseTakenName(trx, 'spending_rules', scope.vendorId, next.name, current.id);
    }
    if (changes.summary !== undefined) next.summary = cleanText(changes.summary);
    if (changes.description !== undefined) next.description = cleanText(changes.description);
    if (changes.cost !== undefined) next.cost = changes.cost;
    if (changes.currency !== undefined) {
      const currency = await loyaltyCurrency(trx, scope.vendorId, changes.currency);
      next.currencyId = currency.id;
      next.currencyPublicId = currency.public_id;
    }
    applyWindowAndStatus(current, next, changes);

    next.updatedAt = engine.clock.now();
    await trx
      .updateTable('spending_rules')
      .set({
        name: next.name,
        summary: next.summary,
        description: next.description,
        cost: next.cost,
        currency_id: next.currencyId,
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
