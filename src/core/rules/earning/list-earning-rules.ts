import type { Engine, VendorScope } from '../../engine';
import { parseStatus } from '../../lifecycle/status';
import { type ListPage, type ListRequest, planList } from '../../listing/list-plan';
import { vendorMoneyDigits } from '../../currencies/vendor-money';
import { withPublicIds } from '../rule-fields';
import { type EarningRuleRecord, toEarningRuleRecord } from './earning-rule';
import { listEarningRuleRows } from './earning-rule-store';

/** Filters: `n:` name starts with (any case), `s:` status. */
export async function listEarningRules(engine: Engine, scope: VendorScope, request: ListRequest): Promise<ListPage<EarningRuleRecord>> {
  const plan = planList(request, { filterKeys: ['n', 's'], sortFields: ['date_created', 'date_updated', 'name'], defaultSort: 'date_created' });
  if (plan.filters.s !== undefined) plan.filters.s = parseStatus(plan.filters.s, 'query');
  const page = await listEarningRuleRows(engine.db, scope.vendorId, plan);
  const digits = await vendorMoneyDigits(engine.db, scope.vendorId);
  const rows = await withPublicIds(engine, 'earning_rules', 'erul', page.items);
  return { ...page, items: rows.map((row) => toEarningRuleRecord(row, digits)) };
}
