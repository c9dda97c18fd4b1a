import type { Kysely, Selectable } from 'kysely';
import { fetchPage, type ListPage, type ListPlan, whereStartsWith } from '../listing/list-plan';
import type { CardsTable, DB } from '../storage/schema';
import { cardNumberKey } from './card';

export type CardFilterKey = 'n' | 's';
export type CardSortField = 'date_created' | 'date_updated' | 'number';
const SORT_COLUMNS: Record<CardSortField, string> = { date_created: 'created_at', date_updated: 'updated_at', number: 'number_key' };

export function findCardRow(db: Kysely<DB>, vendorId: number, publicId: string) {
  return db
    .selectFrom('cards')
    .selectAll()
    .where('vendor_id', '=', vendorId)
    .where('public_id', '=', publicId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function cardNumberTaken(db: Kysely<DB>, vendorId: number, numberKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('cards')
    .select('id')
    .where('vendor_id', '=', vendorId)
    .where('number_key', '=', numberKey)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

export function listCardRows(db: Kysely<DB>, vendorId: number, plan: ListPlan<CardFilterKey, CardSortField>): Promise<ListPage<Selectable<CardsTable>>> {
  let query = db.selectFrom('cards').selectAll().where('vendor_id', '=', vendorId).where('deleted_at', 'is', null);
  if (plan.filters.n !== undefined) query = whereStartsWith(query, 'number_key', cardNumberKey(plan.filters.n));
  if (plan.filters.s !== undefined) query = query.where('status', '=', plan.filters.s);
  return fetchPage(query, plan, SORT_COLUMNS[plan.sort]);
}
