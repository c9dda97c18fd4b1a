import type { Engine, VendorScope } from '../../engine';
import { parseStatus } from '../../lifecycle/status';
import { type ListPage, type ListRequest, planList } from '../../listing/list-plan';
import { type SpendingRuleRecord, toSpendingRuleRecord } from './spending-rule';
import { listSpendingRuleRows } from './spending-rule-store';

/** Filters: `n:` name starts with (any case), `s:` status. */
export async function listSpendingRules(engine: Engine, scope: VendorScope, request: ListRequest): Promise<ListPage<SpendingRuleRecord>> {
  const plan = planList(request, { filterKeys: ['n', 's'], sortFields: ['date_created', 'date_updated', 'name', 'cost'], defaultSort: 'date_created' });
  if (plan.filters.s !== undefined) plan.filters.s = parseStatus(plan.filters.s, 'query');
  const page = await listSpendingRuleRows(engine.db, scope.vendorId, plan);
  return { ...page, items: page.items.map(toSpendingRuleRecord) };
}
