import type { Kysely, Migration } from 'kysely';

// Issues 11 and 13 (first sync by snapshot): the customers of a vendor are the users with a
// membership of it, removed ones included (as the pull path sends them). The unique index on
// (user_id, vendor_id) is partial (removed_at is null), so it cannot answer "has this user any
// membership of this vendor": without this index central's snapshot (and the pull's customer
// filter) scanned every membership of the vendor for each user.
export const snapshot: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('user_vendors_user_any').on('user_vendors').columns(['user_id', 'vendor_id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('user_vendors_user_any').execute();
  },
};
