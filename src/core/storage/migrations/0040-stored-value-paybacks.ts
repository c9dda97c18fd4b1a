import type { Kysely, Migration } from 'kysely';

// Stored value paid back to a customer (docs/decisions.md, "Ninth round: stored value paid back"):
// - stored_value_paybacks: one row per pay-back staff made (cash or card), keyed by the request's
//   idempotency key so a double click pays once; its ledger entry is kind `payback`.
// - stored_value_payback_refunds: the card refunds a pay-back is made of (one per reload charge it
//   goes back to), each sent to the gateway under its own key; what a charge still has to give
//   back is its amount less its refunds that did not fail.
// - test_gateway_refunds: the built-in test gateway's refunds (partial ones too), by key.
// No foreign key names a row a store pushes (users): pay-backs are made where the program lives.
export const storedValuePaybacks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('stored_value_paybacks')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('user_id', 'bigint', (c) => c.notNull())
      .addColumn('currency_id', 'bigint', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('amount_paid', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('staff_id', 'bigint', (c) => c.notNull())
      .addColumn('note', 'text')
      .addColumn('ledger_entry_id', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createIndex('stored_value_paybacks_key').on('stored_value_paybacks').columns(['vendor_id', 'idempotency_key']).unique().execute();
    await db.schema.createIndex('stored_value_paybacks_user').on('stored_value_paybacks').columns(['vendor_id', 'user_id']).execute();

    await db.schema
      .createTable('stored_value_payback_refunds')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('payback_id', 'bigint', (c) => c.notNull().references('stored_value_paybacks.id'))
      .addColumn('charge_id', 'bigint', (c) => c.notNull().references('payment_charges.id'))
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('gateway_refund_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('stored_value_payback_refunds_payback').on('stored_value_payback_refunds').columns(['payback_id']).execute();
    await db.schema.createIndex('stored_value_payback_refunds_charge').on('stored_value_payback_refunds').columns(['charge_id', 'status']).execute();

    await db.schema
      .createTable('test_gateway_refunds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('charge_id', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('test_gateway_refunds_charge').on('test_gateway_refunds').columns(['charge_id']).execute();
  },
};
