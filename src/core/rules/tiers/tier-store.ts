import { type Kysely, type Selectable, sql } from 'kysely';
import { fetchPage, type ListPage, type ListPlan } from '../../listing/list-plan';
import type { DB, TiersTable } from '../../storage/schema';
import { emptyPage, idsWithNamePrefix } from '../rule-fields';

export type TierFilterKey = 'n';
export type TierSortField = 'date_created' | 'date_updated' | 'name' | 'threshold';
const SORT_COLUMNS: Record<TierSortField, string> = { date_created: 'created_at', date_updated: 'updated_at', name: 'name_sort', threshold: 'threshold' };

export function findTierRow(db: Kysely<DB>, vendorId: number, publicId: string) {
  return db.selectFrom('tiers').selectAll().where('vendor_id', '=', vendorId).where('public_id', '=', publicId).executeTakeFirst();
}

export async function tierThresholdTaken(db: Kysely<DB>, vendorId: number, threshold: number, exceptId?: number): Promise<boolean> {
  let query = db.selectFrom('tiers').select('id').where('vendor_id', '=', vendorId).where('threshold', '=', threshold);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** The vendor's other tiers, lowest threshold first. */
export function otherTiers(db: Kysely<DB>, vendorId: number, exceptId: number) {
  return db.selectFrom('tiers').selectAll().where('vendor_id', '=', vendorId).where('id', '!=', exceptId).orderBy('threshold').orderBy('id').execute();
}

export async function listTierRows(db: Kysely<DB>, vendorId: number, plan: ListPlan<TierFilterKey, TierSortField>): Promise<ListPage<Selectable<TiersTable>>> {
  let query = db.selectFrom('tiers').selectAll().select(sql<string>`lower(name)`.as('name_sort')).where('vendor_id', '=', vendorId);
  if (plan.filters.n !== undefined) {
    const names = await db.selectFrom('tiers').select(['id', 'name']).where('vendor_id', '=', vendorId).execute();
    const ids = idsWithNamePrefix(names, plan.filters.n);
    if (ids.length === 0) return emptyPage(plan);
    query = query.where('id', 'in', ids);
  }
  return fetchPage(query, plan, SORT_COLUMNS[plan.sort]);
}
