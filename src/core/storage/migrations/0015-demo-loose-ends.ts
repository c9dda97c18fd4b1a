import type { Kysely, Migration } from 'kysely';

// Loose ends (issue 17):
// - gateway_detachments: saved cards of an erased customer still to be detached at the payment
//   gateway (an outbox: written in the erasure's transaction, worked off with retries by the node
//   that owns the program). The token is kept only until the gateway has detached it.
// - payment_exceptions: charges the node could not settle on its own (an eGift charge found paid
//   without a gift row, a late reload refused after a quick-pay currency switch), for an admin to
//   list and resolve (refund through the gateway, or credit).
export const demoLooseEnds: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('gateway_detachments')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('billing_profile_id', 'bigint', (c) => c.notNull().references('billing_profiles.id'))
      .addColumn('gateway', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('gateway_detachments_due').on('gateway_detachments').columns(['status', 'next_attempt_at']).execute();

    await db.schema
      .createTable('payment_exceptions')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('charge_id', 'bigint', (c) => c.notNull().references('payment_charges.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('resolution', 'text')
      .addColumn('refund_id', 'text')
      .addColumn('transaction_id', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('resolved_at', 'bigint')
      .execute();
    // One exception per charge and kind: the reconciliation job finds the same charge every pass.
    await db.schema.createIndex('payment_exceptions_charge').on('payment_exceptions').columns(['charge_id', 'kind']).unique().execute();
    await db.schema.createIndex('payment_exceptions_vendor').on('payment_exceptions').columns(['vendor_id', 'status', 'created_at']).execute();
  },
};
