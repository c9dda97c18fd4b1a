import { isServiceError } from '../../shared/errors';
import { findUserVendor, loadVendor } from '../customers/customer-store';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { Engine } from '../engine';
import { foldName } from '../storage/folded-names';
import { identifyCustomer } from '../onscreen/identify-customer';
import { checkCustomerAccess } from './customer-access';
import { findByFullName, findByNameStart } from './name-search';

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
 * passport, app code: one exact, indexed lookup), else by the start of a first or last name, or by
 * a full name (first and last, in either order).
 * `onlyStoreId` limits a store manager to the customers of their store.
 * A member the counter enrolled from another program shows as the counter sees them
 * (seenAtCounter): staff who type their full email or phone find them, and learn no more than the
 * first name and the last name's initial; a name finds them by the first name or that initial.
 */
export async function searchCustomers(engine: Engine, vendorId: number, onlyStoreId: number | null, query: string, limit: number): Promise<CustomerHit[]> {
  const q = query.trim();
  if (q === '') return [];
  const vendor = await loadVendor(engine.db, vendorId);
  try {
    const found = await identifyCustomer(engine.db, engine, { vendorId, country: vendor.country, identification: q });
    await checkCustomerAccess(engine.db, vendorId, onlyStoreId, found.user.id);
    const u = seenAtCounter(found.user, await findUserVendor(engine.db, found.user.id, vendorId));
    return [{ id: u.id, firstName: u.first_name, lastName: u.last_name, email: u.email, phone: u.phone, matchedBy: found.by }];
  } catch (error) {
    if (!isServiceError(error) || error.status >= 500) throw error;
  }
  const words = foldName(q).replace(/[%_\\]/g, '').split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const search = { engine, vendorId, onlyStoreId, start: words.join(' '), limit };
  const list = words.length === 1 ? await findByNameStart(search) : await findByFullName({ ...search, words });
  return list.map((row) => {
    const u = seenAtCounter(row, row);
    return { id: u.id, firstName: u.first_name, lastName: u.last_name, email: u.email, phone: u.phone, matchedBy: 'name' };
  });
}
