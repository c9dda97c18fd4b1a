import { type Kysely, type Migration, sql } from 'kysely';

// Payments: billing profiles (tokenized cards), charges made through the payment gateway port,
// the auto-reload outbox, and the built-in test gateway's own state. No column ever holds a card
// number or a CVV: a profile keeps the gateway's token, the brand, the last four digits, the expiry
// and the postal code.
export const payments: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('billing_profiles')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      // The adapter that issued the token ('test', 'stripe'); a token is only good with it.
      .addColumn('gateway', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('brand', 'text', (c) => c.notNull())
      .addColumn('last4', 'text', (c) => c.notNull())
      .addColumn('expiry_month', 'integer', (c) => c.notNull())
      .addColumn('expiry_year', 'integer', (c) => c.notNull())
      .addColumn('postal_code', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('is_default', 'integer', (c) => c.notNull())
      // Set by the expiry reminder job once it has queued the reminder for this profile.
      .addColumn('expiry_reminded_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema.createIndex('billing_profiles_user').on('billing_profiles').columns(['user_id', 'vendor_id']).execute();
    await db.schema.createIndex('billing_profiles_expiry').on('billing_profiles').columns(['expiry_year', 'expiry_month']).execute();

    // One row per payment asked of the gateway (reloads, auto reloads, eGifts), declined ones too.
    await db.schema
      .createTable('payment_charges')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('user_id', 'bigint', (c) => c.references('users.id'))
      .addColumn('billing_profile_id', 'bigint', (c) => c.references('billing_profiles.id'))
      // 'reload' | 'auto_reload' | 'egift'
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('gateway', 'text', (c) => c.notNull())
      .addColumn('gateway_charge_id', 'text')
      // The client's key, scoped (`user:<id>:<key>`); null when none was sent. Unique per vendor.
      .addColumn('idempotency_key', 'text')
      // What the request asked for (profile and amount): a key reused for another request is refused.
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      // 'created' (gateway not answered yet) | 'pending' | 'succeeded' | 'declined'
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('decline_reason', 'text')
      // The history record of the credit, once the money reached a balance (exactly once).
      .addColumn('transaction_id', 'bigint')
      .addColumn('credited_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('payment_charges_idempotency')
      .unique()
      .on('payment_charges')
      .columns(['vendor_id', 'idempotency_key'])
      .where(sql.ref('idempotency_key'), 'is not', null)
      .execute();
    await db.schema.createIndex('payment_charges_user').on('payment_charges').columns(['user_id', 'vendor_id']).execute();
    await db.schema.createIndex('payment_charges_status').on('payment_charges').columns(['status', 'updated_at']).execute();

    // The auto-reload outbox: written in the order's transaction when a spend crosses the
    // customer's threshold; a worker charges the profile afterwards.
    await db.schema
      .createTable('auto_reloads')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('billing_profile_id', 'bigint', (c) => c.notNull().references('billing_profiles.id'))
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('threshold', 'bigint', (c) => c.notNull())
      .addColumn('order_id', 'bigint')
      // 'queued' | 'pending' (gateway reports late) | 'completed' | 'declined' | 'cancelled'
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('charge_id', 'bigint', (c) => c.references('payment_charges.id'))
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('auto_reloads_due').on('auto_reloads').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('auto_reloads_user').on('auto_reloads').columns(['user_id', 'vendor_id']).execute();

    // The built-in test gateway keeps its state here, so a restart loses no pending charge.
    await db.schema
      .createTable('test_gateway_cards')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('brand', 'text', (c) => c.notNull())
      .addColumn('last4', 'text', (c) => c.notNull())
      .addColumn('scenario', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('test_gateway_charges')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
      // 'pending' | 'succeeded' | 'declined'
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('decline_reason', 'text')
      // For a late result: what it becomes, after how many status polls or at what time.
      .addColumn('outcome', 'text')
      .addColumn('outcome_reason', 'text')
      .addColumn('polls', 'integer', (c) => c.notNull())
      .addColumn('complete_after_polls', 'integer')
      .addColumn('completes_at', 'bigint')
      .addColumn('refunded_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
