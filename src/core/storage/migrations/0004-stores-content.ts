import type { Kysely, Migration } from 'kysely';

// What the apps show about a vendor: where its stores are and when they open, and its content
// pages (terms of service, privacy policy, FAQ).
export const storesContent: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('stores').addColumn('latitude', 'double precision').execute();
    await db.schema.alterTable('stores').addColumn('longitude', 'double precision').execute();
    // JSON: opening hours as the vendor writes them, e.g. {"mon": "07:00-19:00", …}.
    await db.schema.alterTable('stores').addColumn('hours', 'text').execute();

    await db.schema
      .createTable('vendor_content')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('vendor_content_page', ['vendor_id', 'slug', 'language'])
      .execute();
  },
};
