// What sync copies, in foreign-key order (a parent table before its children), essentials first
// (central's first log lists rows in this order), and who may write what.
// docs/sync.md explains the model: central captures changes of these tables into a per-vendor log
// that stores pull; a paired store captures its own local-first writes and pushes them as events.

export interface ReplicatedTable {
  name: string;
  /** Columns never copied off the node that holds them (secrets, per-node counters). */
  omit?: readonly string[];
  /** Values of omitted columns when the row is first inserted on the receiving node. */
  insertDefaults?: Readonly<Record<string, unknown>>;
  /**
   * Omitted times a node keeps about its own use of the row, cleared when a pulled version of the
   * row was written after them (`updated_at` later): someone else touched it since. This node's own
   * versions come back written at or before that time, the last one included. Across nodes it reads
   * two clocks: a skewed one keeps the mark longer, never drops one of this node's own.
   */
  clearedWhenTouched?: readonly string[];
  /**
   * Columns that travel as a fixed value (the column's default), whatever the sending node holds,
   * and that a receiving node writes as that value: what the column really says stays on the node
   * that set it. Unlike `omit`, the column is still in the row, so a node of an earlier version,
   * which expects it (NOT NULL, no default), can still insert the row.
   */
  masked?: Readonly<Record<string, string>>;
  /** Central → store: stores receive it. Store → central: central accepts it from stores. */
  pull: boolean;
  push: boolean;
  /**
   * Columns a store may change on a row central already has. Anything else a store sends about an
   * existing row is ignored (central then re-sends its own version).
   */
  storeWritable?: readonly string[];
  /** How central knows which vendor's log a row belongs to. */
  vendorColumn: 'vendor_id' | 'id' | null;
}

/** `user_vendors.push_endpoints` of a membership without app push tokens (its value at creation). */
export const NO_PUSH_ENDPOINTS = '{"gcm":[],"apns":[]}';

export const REPLICATED_TABLES: readonly ReplicatedTable[] = [
  { name: 'vendors', pull: true, push: false, vendorColumn: 'id' },
  { name: 'stores', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'points_of_sale', pull: true, push: false, vendorColumn: 'vendor_id' },
  // Keys issued at central for a store work at that store's node once paired.
  { name: 'api_keys', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'currencies', pull: true, push: false, vendorColumn: 'vendor_id' },
  // Card pins are sealed with each node's own key; they stay where they were set.
  { name: 'cards', omit: ['pin_sealed'], insertDefaults: { pin_sealed: null }, pull: true, push: true, storeWritable: ['status', 'updated_at'], vendorColumn: 'vendor_id' },
  { name: 'earning_rules', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'tiers', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'spending_rules', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'vendor_content', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'metadata_fields', pull: true, push: false, vendorColumn: 'vendor_id' },
  // Customers belong to no single vendor: central sends a user to the stores of every vendor they joined.
  { name: 'users', omit: ['password_hash', 'failed_logins', 'locked_until'], insertDefaults: { password_hash: null, failed_logins: 0, locked_until: null }, pull: true, push: true, storeWritable: [], vendorColumn: null },
  // A customer's app push tokens stay at central: only central would notify them (docs/sync.md).
  { name: 'user_vendors', masked: { push_endpoints: NO_PUSH_ENDPOINTS }, pull: true, push: true, storeWritable: ['tier_id', 'tier_since', 'updated_at'], vendorColumn: 'vendor_id' },
  // App sessions and barcodes: a customer's app credentials work at the counter of every store.
  { name: 'user_sessions', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'barcode_tokens', pull: true, push: false, vendorColumn: 'vendor_id' },
  { name: 'user_cards', pull: true, push: true, storeWritable: ['status', 'updated_at', 'removed_at'], vendorColumn: 'vendor_id' },
  // Balances before history (a first sync brings identifiers and balances, then sessions and
  // orders). Entries travel with their account's holder and currency instead of a node-local account id.
  { name: 'ledger_entries', pull: true, push: true, storeWritable: [], vendorColumn: 'vendor_id' },
  // Which kiosk greeted a session is the store's own affair (a kiosk key reads what its kiosks
  // identified); re-identified elsewhere (the app at central), it is no kiosk's any more.
  { name: 'pos_sessions', omit: ['kiosk_identified_at'], insertDefaults: { kiosk_identified_at: null }, clearedWhenTouched: ['kiosk_identified_at'], pull: true, push: true, storeWritable: ['status', 'updated_at', 'closed_at', 'closed_reason', 'table_number'], vendorColumn: 'vendor_id' },
  { name: 'orders', pull: true, push: true, storeWritable: ['status', 'void_reply', 'voided_at'], vendorColumn: 'vendor_id' },
  { name: 'transactions', pull: true, push: true, storeWritable: ['status'], vendorColumn: 'vendor_id' },
];

export const TABLE_ORDER = new Map(REPLICATED_TABLES.map((t, i) => [t.name, i]));

const BY_NAME = new Map(REPLICATED_TABLES.map((t) => [t.name, t]));

export function replicatedTable(name: string): ReplicatedTable | undefined {
  return BY_NAME.get(name);
}

/** Rows whose columns point at data that never leaves central (saved cards): cleared at stores. */
export const STORE_CLEARED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  user_vendors: ['billing_profile_id'],
};
