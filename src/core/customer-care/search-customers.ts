import { sql } from 'kysely';
import { isServiceError } from '../../shared/errors';
import { loadVendor } from '../customers/customer-store';
import type { Engine } from '../engine';
import { noIndexOn } from '../storage/dialect';
import { foldedNameSql, foldName } from '../storage/folded-names';
import { identifyCustomer } from '../onscreen/identify-customer';
import { checkCustomerAccess } from './customer-access';

export interface CustomerHit {
  id: number;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  matchedBy: string;
}

/**
 * Finds the program's customers by any identifier the counter accepts (email, phone, card, cédula,
 * passport, app code: one exact, indexed lookup), else by the start of a first or last name.
 * `onlyStoreId` limits a store manager to the customers of their store.
 */
export async function searchCustomers(engine: Engine, vendorId: number, onlyStoreId: number | null, query: string, limit: number): Promise<CustomerHit[]> {
  const q = query.trim();
  if (q === '') return [];
  const vendor = await loadVendor(engine.db, vendorId);
  try {
    const found = await identifyCustomer(engine.db, engine, { vendorId, country: vendor.country, identification: q });
    await checkCustomerAccess(engine.db, vendorId, onlyStoreId, found.user.id);
    const u = found.user;
    return [{ id: u.id, firstName: u.first_name, lastName: u.last_name, email: u.email, phone: u.phone, matchedBy: found.by }];
  } catch (error) {
    if (!isServiceError(error) || error.status >= 500) throw error;
  }
  const start = foldName(q).replace(/[%_\\]/g, '');
  if (start === '') return [];
  const list = await nameSearchQuery(engine, vendorId, onlyStoreId, start, limit).execute();
  return list.map((u) => ({ id: u.id, firstName: u.first_name, lastName: u.last_name, email: u.email, phone: u.phone, matchedBy: 'name' }));
}

/**
 * The program's customers whose first or last name starts with `start` (folded: folded-names.ts), by last name.
 * Exported for the test of its plan: on SQLite the names' indexes find the candidates (`+` keeps
 * the planner off the memberships' vendor index, through which it read every member of the
 * program, 0.5 s at 1M customers even for a prefix nobody has).
 */
export function nameSearchQuery(engine: Engine, vendorId: number, onlyStoreId: number | null, start: string, limit: number) {
  const prefix = `${start}%`;
  // The range finds candidates through the folded-name indexes (migration 0036); LIKE keeps the exact meaning.
  const end = start.slice(0, -1) + String.fromCodePoint(start.codePointAt(start.length - 1)! + 1);
  const folded = (column: 'first_name' | 'last_name') => foldedNameSql(engine.dialect, `u.${column}`);
  const startsWith = (column: 'first_name' | 'last_name') => sql`(${folded(column)} >= ${start} and ${folded(column)} < ${end} and ${folded(column)} like ${prefix})`;
  let rows = engine.db
    .selectFrom('users as u')
    .innerJoin('user_vendors as m', 'm.user_id', 'u.id')
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.phone'])
    .where(noIndexOn(engine.dialect, 'm.vendor_id'), '=', vendorId)
    .where('m.removed_at', 'is', null)
    .where('u.status', '!=', 'deleted')
    .where(sql<boolean>`(${startsWith('first_name')} or ${startsWith('last_name')})`);
  if (onlyStoreId !== null) {
    rows = rows.where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('pos_sessions as s').select('s.id').whereRef('s.user_id', '=', 'u.id').where('s.store_id', '=', onlyStoreId)),
        eb.exists(eb.selectFrom('orders as o').select('o.id').whereRef('o.user_id', '=', 'u.id').where('o.store_id', '=', onlyStoreId)),
      ]),
    );
  }
  // Álvarez among the A's, as the search reads names. `|| ''`: ordered by the indexed expression
  // itself, PostgreSQL walked the whole last-name index in order, the prefix a mere filter (review:
  // "smi" read 27,001 of 30,000 customers); the two ranges read the matches only.
  const unindexed = (column: 'first_name' | 'last_name') => sql`${folded(column)} || ''`;
  return rows.orderBy(unindexed('last_name')).orderBy(unindexed('first_name')).orderBy('u.id').limit(limit);
}
