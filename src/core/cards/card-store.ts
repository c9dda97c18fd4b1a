import { type Kysely, type Selectable, sql } from 'kysely';
import { type ListPage, type ListPlan, pageOf } from '../listing/list-plan';
import { prefixUpperBound } from '../storage/dialect';
import { prepared, preparedShapes } from '../storage/prepared';
import type { CardsTable, DB } from '../storage/schema';
import { cardNumberKey } from './card';

export type CardFilterKey = 'n' | 's';
export type CardSortField = 'date_created' | 'date_updated' | 'number';
const SORT_COLUMNS: Record<CardSortField, string> = { date_created: 'created_at', date_updated: 'updated_at', number: 'number_key' };

const cardByPublicId = prepared((db, vendorId: number, publicId: string) =>
  db.selectFrom('cards').selectAll().where('vendor_id', '=', vendorId).where('public_id', '=', publicId).where('deleted_at', 'is', null),
);

export async function findCardRow(db: Kysely<DB>, vendorId: number, publicId: string): Promise<Selectable<CardsTable> | undefined> {
  return (await cardByPublicId(db, vendorId, publicId))[0];
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

const cardPages = preparedShapes<Selectable<CardsTable>>();

/** One page of the vendor's cards; the query of each filter/sort combination is built once. */
export async function listCardRows(db: Kysely<DB>, vendorId: number, plan: ListPlan<CardFilterKey, CardSortField>): Promise<ListPage<Selectable<CardsTable>>> {
  const prefix = plan.filters.n === undefined ? undefined : cardNumberKey(plan.filters.n);
  const status = plan.filters.s;
  const args: Array<string | number> = [vendorId];
  if (prefix !== undefined) args.push(prefix, prefixUpperBound(prefix));
  if (status !== undefined) args.push(status);
  args.push(plan.limit + 1, (plan.page - 1) * plan.limit);
  const sortColumn = SORT_COLUMNS[plan.sort];
  const key = `${prefix !== undefined}|${status !== undefined}|${sortColumn}|${plan.direction}`;
  const rows = await cardPages(db, key, args, (q, ...a) => {
    let i = 0;
    let query = q.selectFrom('cards').selectAll().where('vendor_id', '=', a[i++] as number).where('deleted_at', 'is', null);
    if (prefix !== undefined) query = query.where('number_key', '>=', a[i++] as string).where('number_key', '<', a[i++] as string);
    if (status !== undefined) query = query.where('status', '=', a[i++] as string);
    return query
      .orderBy(sql.ref(sortColumn), plan.direction)
      .orderBy('id', plan.direction)
      .limit(a[i++] as number)
      .offset(a[i++] as number);
  });
  return pageOf(rows, plan);
}
