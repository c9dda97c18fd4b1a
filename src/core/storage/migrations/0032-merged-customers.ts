import { type Kysely, type Migration, sql } from 'kysely';

// The copies of customers merged into another account (sync: a store registered someone central
// knew), by survivor: an erasure wipes them with the person (customers/account-deletion.ts)
// without reading every customer. Merged rows are few, so the index is small.
export const mergedCustomers: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('users_merged_into').on('users').column('merged_into').where(sql.ref('merged_into'), 'is not', null).execute();
  },
};
