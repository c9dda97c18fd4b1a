import { type Kysely, type Migration, sql } from 'kysely';

// In-store sessions: a customer checked in at a store (by a cashier, a kiosk, the in-store
// register, or the customer's app), identified by a hash until it is closed.
export const posSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('pos_sessions')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('store_id', 'bigint', (c) => c.notNull().references('stores.id'))
      .addColumn('pos_id', 'bigint', (c) => c.references('points_of_sale.id'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      // How the customer was identified: card, email, phone, token, cedula, passport, app, register.
      .addColumn('identified_by', 'text', (c) => c.notNull())
      // The card number when identified by card; other identifications are not kept.
      .addColumn('card_number', 'text')
      .addColumn('opened_by', 'text', (c) => c.notNull())
      .addColumn('table_number', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('closed_at', 'bigint')
      .addColumn('closed_reason', 'text')
      .execute();
    // A customer has at most one open session at a time.
    await db.schema.createIndex('pos_sessions_open_user').unique().on('pos_sessions').column('user_id').where(sql.ref('status'), '=', 'active').execute();
    await db.schema.createIndex('pos_sessions_store_status').on('pos_sessions').columns(['store_id', 'status', 'created_at']).execute();
  },
};
