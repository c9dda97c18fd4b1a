import type { Engine, VendorScope } from '../engine';
import { parseStatus } from '../lifecycle/status';
import { type ListPage, type ListRequest, planList } from '../listing/list-plan';
import { type CardRecord, toCardRecord } from './card';
import { listCardRows } from './card-store';

/** Filters: `n:` number starts with (any case), `s:` status. */
export async function listCards(engine: Engine, scope: VendorScope, request: ListRequest): Promise<ListPage<CardRecord>> {
  const plan = planList(request, { filterKeys: ['n', 's'], sortFields: ['date_created', 'date_updated', 'number'], defaultSort: 'date_created' });
  if (plan.filters.s !== undefined) plan.filters.s = parseStatus(plan.filters.s, 'query');
  const page = await listCardRows(engine.db, scope.vendorId, plan);
  return { ...page, items: page.items.map((row) => toCardRecord(row, engine.sealer)) };
}
