import type { Kysely, Migration } from 'kysely';

// In-store ordering: rewards (spending rules), points expiry and tier windows, orders (one per
// receipt per store) and the customer's transaction history.
export const ordersRules: Migration = {
  async up(db: Kysely<unknown>) {
    // Earned points expire this many days after they were earned; null: never.
    await db.schema.alterTable('vendors').addColumn('points_expiry_days', 'integer').execute();
    // A tier is reached by points earned in the last window_days days (null: ever).
    await db.schema.alterTable('tiers').addColumn('window_days', 'integer').execute();
    await db.schema.alterTable('tiers').addColumn('public_id', 'text').execute();
    await db.schema.alterTable('earning_rules').addColumn('public_id', 'text').execute();

    await db.schema
      .createTable('spending_rules')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('currency_id', 'bigint', (c) => c.notNull().references('currencies.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('cost', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('starts_at', 'bigint')
      .addColumn('ends_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema.createIndex('spending_rules_vendor').on('spending_rules').columns(['vendor_id', 'created_at']).execute();

    await db.schema
      .createTable('orders')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('store_id', 'bigint', (c) => c.notNull().references('stores.id'))
      .addColumn('pos_id', 'bigint')
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('session_id', 'bigint')
      .addColumn('receipt_number', 'text', (c) => c.notNull())
      .addColumn('till', 'integer')
      .addColumn('subtotal', 'bigint', (c) => c.notNull())
      .addColumn('total', 'bigint', (c) => c.notNull())
      .addColumn('taxes', 'text', (c) => c.notNull())
      .addColumn('items', 'text', (c) => c.notNull())
      .addColumn('payment_method', 'text')
      .addColumn('ordered_at', 'bigint', (c) => c.notNull())
      .addColumn('quick_pay_used', 'bigint', (c) => c.notNull())
      .addColumn('points_earned', 'bigint', (c) => c.notNull())
      .addColumn('points_spent', 'bigint', (c) => c.notNull())
      .addColumn('redemptions', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      // The first reply, JSON: a resent receipt gets exactly this back.
      .addColumn('reply', 'text', (c) => c.notNull())
      // The first void's reply: voiding again answers exactly this.
      .addColumn('void_reply', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('voided_at', 'bigint')
      .addUniqueConstraint('orders_store_receipt', ['store_id', 'receipt_number'])
      .execute();
    await db.schema.createIndex('orders_user').on('orders').columns(['user_id', 'vendor_id']).execute();

    // One record per value-moving transaction, as the customer's history shows it.
    await db.schema
      .createTable('transactions')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('store_id', 'bigint', (c) => c.references('stores.id'))
      .addColumn('order_id', 'bigint', (c) => c.references('orders.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .addColumn('total', 'bigint', (c) => c.notNull())
      .addColumn('quick_pay_used', 'bigint', (c) => c.notNull())
      .addColumn('quick_pay_loaded', 'bigint', (c) => c.notNull())
      .addColumn('quick_pay_balance', 'bigint', (c) => c.notNull())
      .addColumn('items', 'text', (c) => c.notNull())
      .addColumn('taxes', 'text', (c) => c.notNull())
      .addColumn('receipts', 'text', (c) => c.notNull())
      .addColumn('rewards', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('transactions_user').on('transactions').columns(['user_id', 'vendor_id', 'occurred_at']).execute();
    await db.schema.createIndex('ledger_entries_reference').on('ledger_entries').columns(['reference_type', 'reference_id']).execute();
  },
};
