// Where a store's database names a row of a table it pushes, by id: what must follow when such a
// row takes a new id (reassign-row-ids.ts, after a restore from a backup). Kept by hand, beside the
// schema: test/sync/own-row-references.test.ts fails when a foreign key to one of these tables is
// not listed here.

/** A column holding the id of a row of `names` (a table a store pushes). */
export interface IdReference {
  table: string;
  column: string;
  names: string;
  /** A column naming rows of several tables: only where `column` of this row equals `value`. */
  when?: { column: string; value: string };
  /** Held as text (a ledger entry's reference). */
  text?: boolean;
  /** Only in the rows an event carries (a ledger entry's holder travels with it, from its account). */
  inChangesOnly?: boolean;
}

const user = { column: 'holder_type', value: 'user' };
const card = { column: 'holder_type', value: 'card' };
const referenceTo = (value: string) => ({ column: 'reference_type', value });

export const ID_REFERENCES: readonly IdReference[] = [
  { table: 'users', column: 'merged_into', names: 'users' },
  ...['user_vendors', 'user_sessions', 'one_time_codes', 'barcode_tokens', 'user_cards', 'pos_sessions', 'orders', 'transactions', 'inbox_messages', 'promotion_awards', 'billing_profiles', 'payment_charges', 'auto_reloads'].map(
    (table) => ({ table, column: 'user_id', names: 'users' }),
  ),
  { table: 'egifts', column: 'buyer_user_id', names: 'users' },
  { table: 'egifts', column: 'claimed_by_user_id', names: 'users' },
  { table: 'ledger_accounts', column: 'holder_id', names: 'users', when: user },
  { table: 'ledger_entries', column: 'holder_id', names: 'users', when: user, inChangesOnly: true },
  { table: 'ledger_entries', column: 'reference_id', names: 'users', when: referenceTo('user'), text: true },
  { table: 'user_cards', column: 'card_id', names: 'cards' },
  { table: 'ledger_accounts', column: 'holder_id', names: 'cards', when: card },
  { table: 'ledger_entries', column: 'holder_id', names: 'cards', when: card, inChangesOnly: true },
  { table: 'ledger_entries', column: 'reference_id', names: 'cards', when: referenceTo('card'), text: true },
  { table: 'user_metadata', column: 'user_vendor_id', names: 'user_vendors' },
  { table: 'orders', column: 'session_id', names: 'pos_sessions' },
  { table: 'transactions', column: 'order_id', names: 'orders' },
  { table: 'auto_reloads', column: 'order_id', names: 'orders' },
  { table: 'ledger_entries', column: 'reference_id', names: 'orders', when: referenceTo('order'), text: true },
  ...['promotion_awards', 'payment_charges', 'payment_exceptions'].map((table) => ({ table, column: 'transaction_id', names: 'transactions' })),
  { table: 'egifts', column: 'claim_transaction_id', names: 'transactions' },
  { table: 'ledger_entries', column: 'reverses_id', names: 'ledger_entries' },
];

/** An id inside a JSON text column: the path of keys to it ('*' for each element of an array). */
export interface JsonIdReference {
  table: string;
  column: string;
  path: readonly string[];
  names: string;
}

/** An order's stored reply (a resend of the receipt gets it back; a void reads its history record there). */
const orderReply = (column: string): JsonIdReference[] => [
  { table: 'orders', column, path: ['orderId'], names: 'orders' },
  { table: 'orders', column, path: ['user', 'id'], names: 'users' },
  { table: 'orders', column, path: ['transactionId'], names: 'transactions' },
];

export const JSON_ID_REFERENCES: readonly JsonIdReference[] = [
  ...orderReply('reply'),
  ...orderReply('void_reply'),
  // A void's history record names the record it voids.
  { table: 'transactions', column: 'receipts', path: ['*', 'voids'], names: 'transactions' },
];
