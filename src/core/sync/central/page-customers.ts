import type { Kysely } from 'kysely';
import type { DB } from '../../storage/schema';
import type { PushedEvent, RowChange } from '../protocol';
import { chunks } from '../bulk-lists';

// Customers a store registered at the counter, for the bulk path (apply-batch.ts): a new customer
// and their membership go in a run when no conflict rule applies — no customer at central or
// earlier in the page has their email, none of the vendor's members has their phone (those are
// merged by the per-event path), and they are not a member already (the first membership stands).

export interface PageCustomers {
  /** Email keys central's customers (and the page's new ones so far) hold. */
  emails: Set<string>;
  /** Phones of the vendor's members at central (and of the page's new customers so far). */
  phones: Set<string>;
  /** Customers with a membership of the vendor at central or made earlier in the page. */
  members: Set<number>;
}

/** Three queries for the identifiers and memberships the page's new customers could clash with. */
export async function learnPageCustomers(trx: Kysely<DB>, events: PushedEvent[], vendorId: number): Promise<PageCustomers> {
  const emails = new Set<string>();
  const phones = new Set<string>();
  const users = new Set<number>();
  for (const event of events) {
    for (const { tbl, data } of event.changes) {
      if (tbl === 'users' && typeof data['email_key'] === 'string') emails.add(data['email_key']);
      if (tbl === 'users' && typeof data['phone'] === 'string' && data['phone']) phones.add(data['phone']);
      if (tbl === 'user_vendors' && typeof data['user_id'] === 'number') users.add(data['user_id']);
    }
  }
  const known: PageCustomers = { emails: new Set(), phones: new Set(), members: new Set() };
  for (const chunk of chunks([...emails], 5_000)) {
    for (const row of await trx.selectFrom('users').select('email_key').where('email_key', 'in', chunk).execute()) if (row.email_key) known.emails.add(row.email_key);
  }
  for (const chunk of chunks([...phones], 5_000)) {
    const rows = await trx
      .selectFrom('users as u')
      .innerJoin('user_vendors as uv', 'uv.user_id', 'u.id')
      .select('u.phone')
      .where('u.phone', 'in', chunk)
      .where('u.merged_into', 'is', null)
      .where('uv.vendor_id', '=', vendorId)
      .where('uv.removed_at', 'is', null)
      .execute();
    for (const row of rows) if (row.phone) known.phones.add(row.phone);
  }
  for (const chunk of chunks([...users], 5_000)) {
    const rows = await trx.selectFrom('user_vendors').select('user_id').where('vendor_id', '=', vendorId).where('removed_at', 'is', null).where('user_id', 'in', chunk).execute();
    for (const row of rows) known.members.add(Number(row.user_id));
  }
  return known;
}

/** Whether a new customer or membership can go in as sent (the caller has checked ids and vendor). */
export function isPlainRegistration(customers: PageCustomers, change: RowChange): boolean {
  const { data } = change;
  if (change.tbl === 'users') {
    if (data['merged_into'] != null) return false;
    if (typeof data['email_key'] === 'string' && customers.emails.has(data['email_key'])) return false;
    return !(typeof data['phone'] === 'string' && data['phone'] && customers.phones.has(data['phone']));
  }
  if (change.tbl === 'user_vendors') {
    return typeof data['user_id'] === 'number' && data['removed_at'] == null && !customers.members.has(data['user_id']);
  }
  return true;
}

/** A customer or membership taken (in a run or alone) counts for the events after it. */
export function rememberRegistration(customers: PageCustomers, change: RowChange): void {
  const { data } = change;
  if (change.tbl === 'users') {
    if (typeof data['email_key'] === 'string') customers.emails.add(data['email_key']);
    if (typeof data['phone'] === 'string' && data['phone']) customers.phones.add(data['phone']);
  }
  if (change.tbl === 'user_vendors' && typeof data['user_id'] === 'number') customers.members.add(data['user_id']);
}
