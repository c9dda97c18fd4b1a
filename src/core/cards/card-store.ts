import { type Kysely, type Selectable, sql } from 'kysely';
import { type ListPage, type ListPlan, pageOf } from '../listing/list-plan';
import { dialectOf, prefixUpperBound } from '../storage/dialect';
import { prepared, preparedShapes } from '../storage/prepared';
import type { CardsTable, DB } from '../storage/schema';
import { type CardRow, cardNumberKey } from './card';

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

// The list's columns in the order of the JSON rows SQLite returns (vendor_id is the caller's).
const LIST_COLUMNS = ['id', 'public_id', 'number', 'pin_sealed', 'data', 'status', 'created_at', 'updated_at'] as const;
type ListedCard = [number, string, string, string | null, string, string, number, number];

const cardPages = preparedShapes<Omit<CardRow, 'vendor_id'> | { page: string }>();

interface PageShape {
  prefix: boolean;
  status: boolean;
  sortColumn: string;
  direction: 'asc' | 'desc';
}

/**
 * The query of one page of cards of this shape; `a` binds, in order, the vendor, the number range
 * (with `prefix`), the status (with `status`), then the limit and the offset.
 */
export function cardPageQuery(q: Kysely<DB>, shape: PageShape, ...a: Array<string | number | null>) {
  let i = 0;
  let matches = q.selectFrom('cards').where('vendor_id', '=', a[i++] as number).where('deleted_at', 'is', null);
  if (shape.prefix) matches = matches.where('number_key', '>=', a[i++] as string).where('number_key', '<', a[i++] as string);
  if (shape.status) matches = matches.where('status', '=', a[i++] as string);
  const [limit, offset] = [a[i++] as number, a[i++] as number];
  if (dialectOf(q as Kysely<unknown>) === 'postgres') {
    return matches.select([...LIST_COLUMNS]).orderBy(sql.ref(shape.sortColumn), shape.direction).orderBy('id', shape.direction).limit(limit).offset(offset);
  }
  // On SQLite only the rowids of the page are sorted (ORDER BY … LIMIT sorts every match, and
  // small records sort faster), then the page's rows are read by rowid in that order: the sorted
  // subquery runs as a co-routine driving the outer loop (CROSS JOIN keeps it outermost), so the
  // aggregate sees the rows in the page's order (test/storage/query-plans reads the plan). A second
  // sort inside the aggregate (ORDER BY in json_group_array) cost as much again as the first (issue 13).
  const page = matches
    .select(sql<number>`rowid`.as('rowid'))
    .orderBy(sql.ref(shape.sortColumn), shape.direction)
    .orderBy('id', shape.direction)
    .limit(limit)
    .offset(offset);
  return q
    .selectFrom(page.as('p'))
    .crossJoin('cards as c')
    .select(sql<string>`json_group_array(json_array(${sql.join(LIST_COLUMNS.map((column) => sql.ref(`c.${column}`)))}))`.as('page'))
    .where(sql<number>`c.rowid`, '=', sql<number>`p.rowid`);
}

/**
 * One page of the vendor's cards; the query of each filter/sort combination is built once. On
 * SQLite the page comes back as one JSON value (an array of row arrays): better-sqlite3 builds a JS
 * value per column of each row, and that cost as much as reading and sorting the rows (issue 13).
 */
export async function listCardRows(db: Kysely<DB>, vendorId: number, plan: ListPlan<CardFilterKey, CardSortField>): Promise<ListPage<CardRow>> {
  const prefix = plan.filters.n === undefined ? undefined : cardNumberKey(plan.filters.n);
  const status = plan.filters.s;
  const args: Array<string | number> = [vendorId];
  if (prefix !== undefined) args.push(prefix, prefixUpperBound(prefix));
  if (status !== undefined) args.push(status);
  args.push(plan.limit + 1, (plan.page - 1) * plan.limit);
  const shape: PageShape = { prefix: prefix !== undefined, status: status !== undefined, sortColumn: SORT_COLUMNS[plan.sort], direction: plan.direction };
  const key = `${shape.prefix}|${shape.status}|${shape.sortColumn}|${shape.direction}`;
  const rows = await cardPages(db, key, args, (q, ...a) => cardPageQuery(q, shape, ...a));
  const first = rows[0];
  const listed =
    first !== undefined && 'page' in first
      ? (JSON.parse(first.page) as ListedCard[]).map(([id, public_id, number, pin_sealed, data, status, created_at, updated_at]) => ({
          id,
          public_id,
          vendor_id: vendorId,
          number,
          pin_sealed,
          data,
          status,
          created_at,
          updated_at,
        }))
      : (rows as Array<Omit<CardRow, 'vendor_id'>>).map((row) => ({ ...row, vendor_id: vendorId }));
  return pageOf(listed, plan);
}
