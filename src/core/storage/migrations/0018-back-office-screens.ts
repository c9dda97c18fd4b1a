import type { Kysely, Migration } from 'kysely';

// The back office's screens (issue 15): a customer blocked in a program (refused at check-in and
// at orders) with when and why. Null: not blocked. Travels to paired stores with the membership.
export const backOfficeScreens: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('user_vendors').addColumn('blocked_at', 'bigint').execute();
    await db.schema.alterTable('user_vendors').addColumn('blocked_reason', 'text').execute();
  },
};
