import { type Kysely, type Migration, sql } from 'kysely';

// The back office's screens (issue 15): a customer blocked in a program (refused at check-in and
// at orders) with when and why. Null: not blocked. Travels to paired stores with the membership.
// And the back office's name search: indexes on the lowercased names, so a prefix is a range scan
// rather than a pass over every customer (on the folded names since 0036).
export const backOfficeScreens: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('user_vendors').addColumn('blocked_at', 'bigint').execute();
    await db.schema.alterTable('user_vendors').addColumn('blocked_reason', 'text').execute();
    await db.schema.createIndex('users_first_name_lower').on('users').expression(sql`lower(first_name)`).execute();
    await db.schema.createIndex('users_last_name_lower').on('users').expression(sql`lower(last_name)`).execute();
  },
};
