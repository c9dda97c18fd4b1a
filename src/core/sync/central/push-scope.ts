import type { Kysely } from 'kysely';
import type { EventRefusal } from '../../../shared/sync-exception-said';
import { nodeOfId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';

// What a paired node may write is bounded by its credential: its vendor and its store. A row's own
// vendor_id is checked where it is applied; these are the rows it points at. A node's credential
// sits on a shop's PC, and a central may serve several programs: without these checks a node could
// move another program's balances (an entry in that program's currency), enrol another program's
// customers into its own and pull their profiles (a membership of a user id it never saw), or write
// another store's sales.

/** Tables whose new rows are a store's own (an order, a check-in, a history record of its store). */
const STORE_ROWS = new Set(['orders', 'pos_sessions', 'transactions']);
/** Of those, rows another store may still change: a check-in the customer left by checking in elsewhere. */
const CHANGED_BY_OTHER_STORES = new Set(['pos_sessions']);

/** Why a pushed row reaches outside the node, read from the row alone (no query); null when it does not. */
export function outsideNodeByRow(node: PairedNode, table: string, data: Record<string, unknown>, existing: Record<string, unknown> | undefined): EventRefusal | null {
  if (!STORE_ROWS.has(table)) return null;
  if (existing) {
    if (CHANGED_BY_OTHER_STORES.has(table) || existing['store_id'] == null) return null;
    return Number(existing['store_id']) === node.storeId ? null : { why: 'other_store_row', table, id: Number(existing['id']) };
  }
  // A history record of no store (none a store writes today) is left to the vendor check.
  if (data['store_id'] == null && table === 'transactions') return null;
  return data['store_id'] === node.storeId ? null : { why: 'names_other_store', table, id: Number(data['id']) };
}

/**
 * Why a new pushed row points outside the node's vendor, by what central holds; null when it does
 * not. `originalUserId` is the customer the node named, before a merge rewrote it to the survivor.
 */
export async function outsideNodeByReference(trx: Kysely<DB>, node: PairedNode, table: string, data: Record<string, unknown>, originalUserId: unknown): Promise<EventRefusal | null> {
  if (table === 'ledger_entries') {
    const currency = await trx.selectFrom('currencies').select('id').where('id', '=', Number(data['currency_id'])).where('vendor_id', '=', node.vendorId).executeTakeFirst();
    return currency ? null : { why: 'other_program_currency', id: Number(data['id']) };
  }
  if (table === 'user_vendors' && typeof originalUserId === 'number' && nodeOfId(originalUserId) !== node.id) {
    // A store knows only its program's members and the customers it registered itself.
    return (await hasMembership(trx, Number(data['user_id']), node.vendorId)) ? null : { why: 'other_program_customer', id: Number(data['id']) };
  }
  return null;
}

/** The customer has (or had: a removed one counts) a membership of the program at central. */
export async function hasMembership(trx: Kysely<DB>, userId: number, vendorId: number): Promise<boolean> {
  return (await trx.selectFrom('user_vendors').select('id').where('user_id', '=', userId).where('vendor_id', '=', vendorId).executeTakeFirst()) !== undefined;
}
