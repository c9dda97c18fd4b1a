import { type Kysely, type Migration, sql } from 'kysely';

// One open in-store session per customer per program (vendor), not per account. Accounts are
// shared between programs, and migration 0005's index (unique user_id where active) made a
// check-in at vendor B close the customer's open session at vendor A as "moved": vendor A's
// queue, events and webhooks moved by vendor B's key. The index serves the check-in's and the
// order's lookup of "the customer's open session in this program" too.
export const openSessionPerProgram: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('pos_sessions_open_user').execute();
    await db.schema
      .createIndex('pos_sessions_open_user_vendor')
      .unique()
      .on('pos_sessions')
      .columns(['user_id', 'vendor_id'])
      .where(sql.ref('status'), '=', 'active')
      .execute();
  },
};
