import { type Kysely, type Migration, sql } from 'kysely';

// The loyalty currency a program's tiers count (rules/tiers/tier-currency.ts): they counted every
// loyalty currency added up, so 8 stamps moved a member toward Gold as 8 points did. Null: the
// program's first loyalty currency (the one made with the program). A program with several is set
// to its first one here, as null would say: the same measure, now named. vendors is program data:
// its triggers (0017) tell the program cache, and the row travels to stores (replicated-tables.ts).
export const tierCurrency: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('vendors').addColumn('tier_currency_id', 'bigint').execute();
    await sql`
      update vendors set tier_currency_id = (
        select c.id from currencies c where c.vendor_id = vendors.id and c.code is null and c.deleted_at is null order by c.created_at, c.id limit 1)
      where (select count(*) from currencies c where c.vendor_id = vendors.id and c.code is null and c.deleted_at is null) > 1`.execute(db);
  },
};
