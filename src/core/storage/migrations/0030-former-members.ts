import { type Kysely, type Migration, sql } from 'kysely';

// The memberships customers left, by program: central finds among them who of a page of customers
// left the store's program (sync/central/former-members.ts) with a short range of this index,
// instead of a membership lookup for every customer of every page (a million at a first sync).
export const formerMembers: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('user_vendors_removed')
      .on('user_vendors')
      .columns(['vendor_id', 'user_id'])
      .where(sql.ref('removed_at'), 'is not', null)
      .execute();
  },
};
