import { type SelectQueryBuilder, sql } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../shared/schemas/common';
import { prefixUpperBound } from '../storage/dialect';

export interface ListRequest {
  limit?: number | undefined;
  page?: number | undefined;
  query?: string | undefined;
  sort?: string | undefined;
  order?: string | undefined;
}

export interface ListPlan<Key extends string, Sort extends string> {
  limit: number;
  /** 1-based page number. */
  page: number;
  filters: Partial<Record<Key, string>>;
  sort: Sort;
  direction: 'asc' | 'desc';
}

export interface ListPage<T> {
  items: T[];
  page: number;
  limit: number;
  hasMore: boolean;
}

/**
 * Reads the list parameters every resource-style list shares. `query` holds space-delimited
 * `key:value` pairs combined with AND; a value with spaces can be quoted (`n:"gold card"`).
 */
export function planList<Key extends string, Sort extends string>(
  request: ListRequest,
  options: { filterKeys: readonly Key[]; sortFields: readonly Sort[]; defaultSort: Sort },
): ListPlan<Key, Sort> {
  const limit = request.limit ?? DEFAULT_PAGE_LIMIT;
  const page = request.page ?? 1;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new ServiceError('validation_failed', `limit must be between 1 and ${MAX_PAGE_LIMIT}.`, 'limit');
  }
  if (!Number.isInteger(page) || page < 1) throw new ServiceError('validation_failed', 'page must be 1 or more.', 'page');

  const sort = (request.sort ?? options.defaultSort) as Sort;
  if (!options.sortFields.includes(sort)) {
    throw new ServiceError('invalid_sort', `sort must be one of ${options.sortFields.join(', ')}.`, 'sort');
  }
  const order = (request.order ?? 'DESC').toUpperCase();
  if (order !== 'ASC' && order !== 'DESC') throw new ServiceError('invalid_sort', 'order must be ASC or DESC.', 'order');

  return { limit, page, sort, direction: order === 'ASC' ? 'asc' : 'desc', filters: parseFilters(request.query, options.filterKeys) };
}

// key:"quoted value" or key:value; a value that opens a quote must close it.
const PAIR = /^([A-Za-z_]+):(?:"([^"]*)"(?=\s|$)|([^\s"]\S*))/;

export function parseFilters<Key extends string>(query: string | undefined, keys: readonly Key[]): Partial<Record<Key, string>> {
  const filters: Partial<Record<Key, string>> = {};
  let rest = (query ?? '').trim();
  while (rest.length > 0) {
    const match = PAIR.exec(rest);
    if (!match) throw new ServiceError('invalid_query', `"${rest.split(/\s/)[0]}" is not a key:value filter.`, 'query');
    const key = match[1] as Key;
    const value = (match[2] ?? match[3] ?? '').trim();
    if (!keys.includes(key)) {
      // A list with no filter keys has none to suggest.
      const use = keys.length > 0 ? `use ${keys.map((k) => `${k}:`).join(' or ')}` : 'this list takes no filters';
      throw new ServiceError('invalid_query', `Unknown filter key "${key}"; ${use}.`, 'query');
    }
    if (filters[key] !== undefined) throw new ServiceError('invalid_query', `The filter key "${key}" is given twice.`, 'query');
    if (value === '') throw new ServiceError('invalid_query', `The filter "${key}:" needs a value.`, 'query');
    filters[key] = value;
    rest = rest.slice(match[0].length).trimStart();
  }
  return filters;
}

/** Keeps rows whose normalised key column starts with `prefix`; uses the column's index. */
export function whereStartsWith<QB extends SelectQueryBuilder<any, any, any>>(qb: QB, column: string, prefix: string): QB {
  return qb
    .where(sql.ref(column), '>=', prefix)
    .where(sql.ref(column), '<', prefixUpperBound(prefix)) as QB;
}

/** Orders (ties broken by id), pages, and reports whether another page follows. */
export async function fetchPage<Row>(
  qb: SelectQueryBuilder<any, any, Row>,
  plan: ListPlan<string, string>,
  sortColumn: string,
): Promise<ListPage<Row>> {
  const rows = await qb
    .orderBy(sql.ref(sortColumn), plan.direction)
    .orderBy(sql.ref('id'), plan.direction)
    .limit(plan.limit + 1)
    .offset((plan.page - 1) * plan.limit)
    .execute();
  return pageOf(rows, plan);
}

/** The page of `rows` read with limit + 1 (the extra row only says another page follows). */
export function pageOf<Row>(rows: Row[], plan: Pick<ListPlan<string, string>, 'limit' | 'page'>): ListPage<Row> {
  const hasMore = rows.length > plan.limit;
  return { items: hasMore ? rows.slice(0, plan.limit) : rows, page: plan.page, limit: plan.limit, hasMore };
}
