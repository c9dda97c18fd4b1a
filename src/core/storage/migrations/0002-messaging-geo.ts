import type { Kysely, Migration } from 'kysely';

// Messaging outbox (emails and SMS written in the transaction that causes them, delivered by a
// worker) and the vendor's served countries.
export const messagingGeo: Migration = {
  async up(db: Kysely<unknown>) {
    // JSON array of ISO 3166-1 alpha-2 codes; null serves every country.
    await db.schema.alterTable('vendors').addColumn('countries', 'text').execute();

    await db.schema
      .createTable('messages_outbox')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.references('vendors.id'))
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('template', 'text', (c) => c.notNull())
      .addColumn('locale', 'text', (c) => c.notNull())
      // Template parameters (they may hold a one-time token): cleared once delivered or given up.
      .addColumn('params', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('sent_at', 'bigint')
      .execute();
    await db.schema.createIndex('messages_outbox_due').on('messages_outbox').columns(['status', 'next_attempt_at']).execute();
  },
};
