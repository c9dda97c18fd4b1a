import { type RawBuilder, sql } from 'kysely';
import type { Engine } from '../engine';
import { noIndexOn } from '../storage/dialect';
import { foldedNameSql } from '../storage/folded-names';

// The back office's search by the start of a name: the program's customers whose first or last
// name starts with what was typed (folded: folded-names.ts), a page of them by last name, first
// name and id. Reading every match and sorting them is cheap for a rare prefix and was 1–8 s for
// a first letter at 1M customers (on a store node that is the counter's event loop). So a name
// range holding more than BROAD names is walked in the order of the page instead, and stops when
// the page is full: the last names along their own index, the first names along the last-name
// index, each row checked (docs/decisions.md, Back office: "A search by a common first letter").
// A member the counter enrolled from another program (counter_enrolled, not yet confirmed here) is
// shown by the first name and the last name's initial (seenAtCounter), so only those find them: a
// longer start of their last name would confirm it. That rule is a filter beside each name's
// condition, never inside it, so the names' indexes still find the candidates.

/** A name range with more names than this (any program's) is walked, not read whole and sorted. */
export const BROAD = 2_000;

type NameColumn = 'first_name' | 'last_name';
export type NameRow = { id: number; first_name: string; last_name: string; email: string | null; phone: string | null; counter_enrolled: number };
type Search = { engine: Engine; vendorId: number; onlyStoreId: number | null; start: string; limit: number };

/** The page of customers whose first or last name starts with `start` (already folded and without LIKE's wildcards). */
export async function findByNameStart(search: Search): Promise<NameRow[]> {
  const [firstBroad, lastBroad] = await Promise.all([isBroad(search, 'first_name'), isBroad(search, 'last_name')]);
  if (!firstBroad && !lastBroad) return nameSearchQuery(search).execute();
  // The page is within the first `limit` of each kind of match: the two short lists, put in order.
  const byLast = await lastNameWalkQuery(search).execute();
  const byFirst = await (firstBroad ? firstNameWalkQuery(search) : firstNameRangeQuery(search)).execute();
  const ids = [...new Set([...byLast, ...byFirst].map((row) => Number(row.id)))];
  if (ids.length === 0) return [];
  return pageOrder(members(search).where('u.id', 'in', ids), search).execute();
}

/**
 * A full name typed ("José Núñez", "Nunez Jose", "María José Ruiz"): the customers whose first name
 * starts with some leading words and last name with the rest, in either order, or one of whose
 * names starts with all of it (a first or last name of several words). Each pair of ranges is
 * narrow (a first and a last name together), so the matches are read whole and sorted.
 */
export function findByFullName(search: Search & { words: string[] }): Promise<NameRow[]> {
  return fullNameQuery(search).execute();
}

/** The query of findByFullName. Exported for the test of its plan: each alternative through a name index. */
export function fullNameQuery(search: Search & { words: string[] }) {
  const { engine, words } = search;
  const whole = words.join(' ');
  const either: RawBuilder<boolean>[] = [startsWith(engine, 'first_name', whole), startsWith(engine, 'last_name', whole)];
  // the alternatives that name a counter-enrolled member no further than their initial
  const shown: RawBuilder<boolean>[] = [startsWith(engine, 'first_name', whole)];
  for (let i = 1; i < words.length; i += 1) {
    const [lead, rest] = [words.slice(0, i).join(' '), words.slice(i).join(' ')];
    const [firstLead, lastLead] = [sql<boolean>`(${startsWith(engine, 'first_name', lead)} and ${startsWith(engine, 'last_name', rest)})`, sql<boolean>`(${startsWith(engine, 'last_name', lead)} and ${startsWith(engine, 'first_name', rest)})`];
    either.push(firstLead, lastLead);
    if (initialOnly(rest)) shown.push(firstLead);
    if (initialOnly(lead)) shown.push(lastLead);
  }
  return pageOrder(members(search).where(sql<boolean>`(${sql.join(either, sql` or `)})`).where(sql<boolean>`(m.counter_enrolled = 0 or ${sql.join(shown, sql` or `)})`), search);
}

/** More than BROAD names in the range of `column` that starts with `start` (a read of at most BROAD + 1 index entries). */
async function isBroad({ engine, start }: Search, column: NameColumn): Promise<boolean> {
  const range = engine.db
    .selectFrom('users as u')
    .select(sql<number>`1`.as('one'))
    .where(inRange(engine, column, start))
    .limit(BROAD + 1);
  const counted = await engine.db.selectFrom(range.as('r')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(counted.n) > BROAD;
}

/**
 * Both names' ranges read whole, then sorted: for prefixes few names share. Exported for the test
 * of its plan: on SQLite the names' indexes find the candidates (`+` keeps the planner off the
 * memberships' vendor index, through which it read every member of the program, 0.5 s at 1M
 * customers even for a prefix nobody has).
 */
export function nameSearchQuery(search: Search) {
  const { engine, start } = search;
  const rows = members(search).where(sql<boolean>`(${startsWith(engine, 'first_name', start)} or ${startsWith(engine, 'last_name', start)})`);
  return pageOrder(initialOnly(start) ? rows : rows.where(sql<boolean>`(m.counter_enrolled = 0 or ${startsWith(engine, 'first_name', start)})`), search);
}

/** The last names that start with `start`, walked along their index in the page's order. Exported for its plan. */
export function lastNameWalkQuery(search: Search) {
  const { engine, start } = search;
  const rows = members(search).where(startsWith(engine, 'last_name', start));
  return walkOrder(initialOnly(start) ? rows : rows.where('m.counter_enrolled', '=', 0), search);
}

/** A common first name's customers in last-name order: the whole last-name index walked, each first name checked. Exported for its plan. */
export function firstNameWalkQuery(search: Search) {
  const { engine, start } = search;
  // substr, not a range or LIKE: neither database may take the first-name index for this filter.
  return walkOrder(members(search).where(sql<boolean>`substr(${folded(engine, 'first_name')}, 1, ${[...start].length}) = ${start}`), search);
}

/** A rarer first name's range read whole and sorted (when only the last names are common). */
function firstNameRangeQuery(search: Search) {
  return pageOrder(members(search).where(startsWith(search.engine, 'first_name', search.start)), search);
}

/** The program's current, undeleted customers (a store manager's: those who came to their store). */
function members({ engine, vendorId, onlyStoreId }: Search) {
  // CROSS JOIN keeps SQLite's join order: customers first (through a name index, or walked in
  // last-name order), each one's membership second; never every member of the program first.
  let rows = engine.db
    .selectFrom('users as u')
    .crossJoin('user_vendors as m')
    .whereRef('m.user_id', '=', 'u.id')
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 'm.counter_enrolled'])
    .where(noIndexOn(engine.dialect, 'm.vendor_id'), '=', vendorId)
    .where('m.removed_at', 'is', null)
    .where('u.status', '!=', 'deleted');
  if (onlyStoreId !== null) {
    rows = rows.where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('pos_sessions as s').select('s.id').whereRef('s.user_id', '=', 'u.id').where('s.store_id', '=', onlyStoreId)),
        eb.exists(eb.selectFrom('orders as o').select('o.id').whereRef('o.user_id', '=', 'u.id').where('o.store_id', '=', onlyStoreId)),
      ]),
    );
  }
  return rows;
}

type Members = ReturnType<typeof members>;

/**
 * Álvarez among the A's, as the search reads names. `|| ''`: ordered by the indexed expression
 * itself, PostgreSQL walked the whole last-name index in order, the prefix a mere filter (review:
 * "smi" read 27,001 of 30,000 customers); the ranges read the matches only.
 */
function pageOrder(rows: Members, { engine, limit }: Search) {
  return rows.orderBy(unindexed(engine, 'last_name')).orderBy(unindexed(engine, 'first_name')).orderBy('u.id').limit(limit);
}

/** The same order, its first key the indexed expression: the last-name index is read in order and the walk stops at the page's end. */
function walkOrder(rows: Members, { engine, limit }: Search) {
  return rows.orderBy(folded(engine, 'last_name')).orderBy(unindexed(engine, 'first_name')).orderBy('u.id').limit(limit);
}

const folded = (engine: Engine, column: NameColumn) => foldedNameSql(engine.dialect, `u.${column}`);
const unindexed = (engine: Engine, column: NameColumn) => sql`${folded(engine, column)} || ''`;

/** A start of a last name that tells no more of it than its initial, which a counter-enrolled member shows. */
const initialOnly = (start: string) => [...start].length <= 1;

/** The index range of names starting with `start` (through the folded-name indexes of migration 0036). */
function inRange(engine: Engine, column: NameColumn, start: string): RawBuilder<boolean> {
  const letters = [...start];
  const end = letters.slice(0, -1).join('') + String.fromCodePoint(letters.at(-1)!.codePointAt(0)! + 1);
  return sql<boolean>`(${folded(engine, column)} >= ${start} and ${folded(engine, column)} < ${end})`;
}

/** The range, and LIKE for its exact meaning. */
function startsWith(engine: Engine, column: NameColumn, start: string): RawBuilder<boolean> {
  return sql<boolean>`(${inRange(engine, column, start)} and ${folded(engine, column)} like ${`${start}%`})`;
}
