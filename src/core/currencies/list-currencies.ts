import type { Engine, VendorScope } from '../engine';
import { parseStatus } from '../lifecycle/status';
import { type ListPage, type ListRequest, planList } from '../listing/list-plan';
import { type CurrencyRecord, toCurrencyRecord } from './currency';
import { listCurrencyRows } from './currency-store';

/** Filters: `n:` name starts with (any case), `s:` status. */
export async function listCurrencies(engine: Engine, scope: VendorScope, request: ListRequest): Promise<ListPage<CurrencyRecord>> {
  const plan = planList(request, { filterKeys: ['n', 's'], sortFields: ['date_created', 'date_updated', 'name'], defaultSort: 'date_created' });
  if (plan.filters.s !== undefined) plan.filters.s = parseStatus(plan.filters.s, 'query');
  const page = await listCurrencyRows(engine.db, scope.vendorId, plan);
  return { ...page, items: page.items.map(toCurrencyRecord) };
}
