import { type Kysely, sql } from 'kysely';
import { fetchPage, type ListPage, type ListPlan } from '../../listing/list-plan';
import type { DB } from '../../storage/schema';
import { emptyPage, idsWithNamePrefix } from '../rule-fields';

export type SpendingRuleFilterKey = 'n' | 's';
export type SpendingRuleSortField = 'date_created' | 'date_updated' | 'name' | 'cost';
const SORT_COLUMNS: Record<SpendingRuleSortField, string> = { date_created: 'created_at', date_updated: 'updated_at', name: 'name_sort', cost: 'cost' };

/** The vendor's rewards that are not deleted, with the `curr_` id of their currency. */
function selectRewards(db: Kysely<DB>, vendorId: number) {
  return db
    .selectFrom('spending_rules')
    .selectAll('spending_rules')
    .select((eb) =>
      eb.selectFrom('currencies').select('currencies.public_id').whereRef('currencies.id', '=', 'spending_rules.currency_id').as('currency_public_id'),
    )
    .where('spending_rules.vendor_id', '=', vendorId)
    .where('spending_rules.deleted_at', 'is', null);
}

export type SpendingRuleRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectRewards>['executeTakeFirst']>>>;

export function findSpendingRuleRow(db: Kysely<DB>, vendorId: number, publicId: string) {
  return selectRewards(db, vendorId).where('spending_rules.public_id', '=', publicId).executeTakeFirst();
}

export async function listSpendingRuleRows(
  db: Kysely<DB>,
  vendorId: number,
  plan: ListPlan<SpendingRuleFilterKey, SpendingRuleSortField>,
): Promise<ListPage<SpendingRuleRow>> {
  let query = selectRewards(db, vendorId).select(sql<string>`lower(spending_rules.name)`.as('name_sort'));
  if (plan.filters.n !== undefined) {
    const names = await db.selectFrom('spending_rules').select(['id', 'name']).where('vendor_id', '=', vendorId).where('deleted_at', 'is', null).execute();
    const ids = idsWithNamePrefix(names, plan.filters.n);
    if (ids.length === 0) return emptyPage(plan);
    query = query.where('spending_rules.id', 'in', ids);
  }
  if (plan.filters.s !== undefined) query = query.where('spending_rules.status', '=', plan.filters.s);
  return fetchPage(query, plan, SORT_COLUMNS[plan.sort]);
}
