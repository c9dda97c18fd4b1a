import type { Engine, VendorScope } from '../../engine';
import { type ListPage, type ListRequest, planList } from '../../listing/list-plan';
import { withPublicIds } from '../rule-fields';
import { type TierRecord, toTierRecord } from './tier';
import { listTierRows } from './tier-store';

/** Filter: `n:` name starts with (any case). Tiers have no status. */
export async function listTiers(engine: Engine, scope: VendorScope, request: ListRequest): Promise<ListPage<TierRecord>> {
  const plan = planList(request, { filterKeys: ['n'], sortFields: ['date_created', 'date_updated', 'name', 'threshold'], defaultSort: 'date_created' });
  const page = await listTierRows(engine.db, scope.vendorId, plan);
  const rows = await withPublicIds(engine, 'tiers', 'tier', page.items);
  return { ...page, items: rows.map(toTierRecord) };
}
