import { type Kysely, sql } from 'kysely';
import { fetchPage, type ListPage, type ListPlan } from '../../listing/list-plan';
import type { DB } from '../../storage/schema';
import { emptyPage, idsWithNamePrefix } from '../rule-fields';

export type EarningRuleFilterKey = 'n' | 's';
export type EarningRuleSortField = 'date_created' | 'date_updated' | 'name';
const SORT_COLUMNS: Record<EarningRuleSortField, string> = { date_created: 'created_at', date_updated: 'updated_at', name: 'name_sort' };

/** Rules with the `curr_` id of their currency (kept even if the currency was deleted since). */
function selectRules(db: Kysely<DB>, vendorId: number) {
  return db
    .selectFrom('earning_rules')
    .selectAll('earning_rules')
    .select((eb) =>
      eb.selectFrom('currencies').select('currencies.public_id').whereRef('currencies.id', '=', 'earning_rules.currency_id').as('currency_public_id'),
    )
    .where('earning_rules.vendor_id', '=', vendorId);
}

export type EarningRuleRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectRules>['executeTakeFirst']>>>;

export function findEarningRuleRow(db: Kysely<DB>, vendorId: number, publicId: string) {
  return selectRules(db, vendorId).where('earning_rules.public_id', '=', publicId).executeTakeFirst();
}

export async function listEarningRuleRows(
  db: Kysely<DB>,
  vendorId: number,
  plan: ListPlan<EarningRuleFilterKey, EarningRuleSortField>,
): Promise<ListPage<EarningRuleRow>> {
  let query = selectRules(db, vendorId).select(sql<string>`lower(earning_rules.name)`.as('name_sort'));
  if (plan.filters.n !== undefined) {
    const names = await db.selectFrom('earning_rules').select(['id', 'name']).where('vendor_id', '=', vendorId).execute();
    const ids = idsWithNamePrefix(names, plan.filters.n);
    if (ids.length === 0) return emptyPage(plan);
    query = query.where('earning_rules.id', 'in', ids);
  }
  if (plan.filters.s !== undefined) query = query.where('earning_rules.status', '=', plan.filters.s);
  return fetchPage(query, plan, SORT_COLUMNS[plan.sort]);
}
