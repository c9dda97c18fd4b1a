import { ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { type ListPage, type ListRequest, pageOf, planList } from '../listing/list-plan';
import { type AdminStore, listAdminStores } from './store-admin';

const SORT_KEYS = { date_created: (s: AdminStore) => s.createdAt, date_updated: (s: AdminStore) => s.updatedAt, name: (s: AdminStore) => s.name.toLocaleLowerCase() } as const;

/**
 * GET /stores: a page of the vendor's stores as every resource-style list pages (`limit`, `page`,
 * `sort` date_created | date_updated | name, `order`, newest first by default). Filters: `n:` name
 * starts with (any case), `s:` status (active | inactive). A chain has tens or hundreds of stores:
 * they are read whole and paged here, which folds case as the screens do.
 */
export async function listStoresPage(engine: Engine, vendorId: number, request: ListRequest): Promise<ListPage<AdminStore>> {
  const plan = planList(request, { filterKeys: ['n', 's'], sortFields: ['date_created', 'date_updated', 'name'], defaultSort: 'date_created' });
  const status = plan.filters.s?.toLowerCase();
  if (status !== undefined && status !== 'active' && status !== 'inactive') throw new ServiceError('invalid_query', 'The filter "s:" is active or inactive.', 'query');
  const prefix = plan.filters.n?.toLocaleLowerCase();
  const key = SORT_KEYS[plan.sort];
  const sign = plan.direction === 'asc' ? 1 : -1;
  const stores = (await listAdminStores(engine, vendorId))
    .filter((s) => (status === undefined || s.status === status) && (prefix === undefined || s.name.toLocaleLowerCase().startsWith(prefix)))
    .sort((a, b) => sign * (compare(key(a), key(b)) || a.id - b.id));
  const from = (plan.page - 1) * plan.limit;
  return pageOf(stores.slice(from, from + plan.limit + 1), plan);
}

const compare = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);
