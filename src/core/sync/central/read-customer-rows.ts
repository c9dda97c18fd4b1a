import { type Kysely, sql } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { Engine } from '../../engine';
import { findIdentifiedCustomer, refuseUnservedAccount } from '../../onscreen/identify-customer';
import type { DB } from '../../storage/schema';
import type { CustomerRows } from '../protocol';
import { replicatedTable } from '../replicated-tables';
import type { PairedNode } from './apply-push';
import { rowsAsJson } from './read-snapshot';

/**
 * One customer for a store whose first sync has not brought them yet (docs/sync.md, "A customer
 * before their turn"): found by what the counter was given, exactly as the store's check-in would
 * find them, with their identifiers, membership and balances of the node's vendor. Only members of
 * the node's program, as in the snapshot. Central's refusals (customer_not_found,
 * card_not_linked, …) are the store's answer.
 */
export async function readCustomerRows(engine: Engine, node: PairedNode, identification: string): Promise<CustomerRows> {
  const db = engine.db;
  const store = await db.selectFrom('stores').select('country').where('id', '=', node.storeId).executeTakeFirstOrThrow();
  const { user } = await findIdentifiedCustomer(db, engine, { vendorId: node.vendorId, country: store.country, identification });
  const userId = Number(user.id);
  const vendorId = node.vendorId;
  // The snapshot's rule: a store receives the customers of its own program, no one else's, and
  // learns nothing of the others (not even that an address has a deactivated account). One who left
  // the program is not its customer either (former-members.ts): joining again goes by the counter.
  const member = await db.selectFrom('user_vendors').select('id').where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('removed_at', 'is', null).executeTakeFirst();
  if (!member) throw new ServiceError('customer_not_found', undefined, 'card_number');
  refuseUnservedAccount(user, 'card_number');
  const mine = sql`r.user_id = ${userId} and r.vendor_id = ${vendorId}`;
  const filters: Array<[string, ReturnType<typeof sql>]> = [
    ['cards', sql`r.vendor_id = ${vendorId} and r.id in (select card_id from user_cards where user_id = ${userId} and vendor_id = ${vendorId})`],
    ['users', sql`r.id = ${userId}`],
    ['user_vendors', mine],
    ['user_sessions', mine],
    ['barcode_tokens', mine],
    ['user_cards', mine],
    ['ledger_entries', sql`r.vendor_id = ${vendorId} and r.account_id in (select id from ledger_accounts where holder_type = 'user' and holder_id = ${userId})`],
  ];
  const tables: CustomerRows['tables'] = [];
  for (const [name, where] of filters) {
    const rows = await rowsAsJson(db as Kysely<DB>, engine.dialect, replicatedTable(name)!, where);
    tables.push({ table: name, rows: rows.map((row) => JSON.parse(row.data) as Record<string, unknown>) });
  }
  return { tables };
}
