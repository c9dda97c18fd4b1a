import type { Kysely, Migration } from 'kysely';

// A membership the counter created for an account of another program (a cashier typed the
// customer's email or phone) is marked until the customer confirms it in this program; until then
// the counter sees their first name and initial only (docs/decisions.md, "Hardening").
//
// Rate-limit counters live in the database, so every process of a node (a central behind a load
// balancer) counts the same window. The key is a keyed digest of rule, dimension and value (no email or IP
// address is stored); a row is swept once its window has passed.
export const hardening: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('user_vendors')
      .addColumn('counter_enrolled', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('rate_limit_windows')
      .addColumn('key_hash', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('hits', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('rate_limit_windows_expiry').on('rate_limit_windows').column('expires_at').execute();
  },
};
