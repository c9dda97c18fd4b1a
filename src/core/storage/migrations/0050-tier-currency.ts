import { type Kysely, type Migration, sql } from 'kysely';

// The loyalty currency a program's tiers count (rules/tiers/tier-currency.ts): they counted every
// loyalty currency added up, so 8 stamps moved a member toward Gold as 8 points did. Null: the
// program's first loyalty currency not archived, else its first (tier-currency.ts). A program with
// several is set to that one here, as null would say: the same measure, now named. Not archived: a
// program that retired Points for Stars counts Stars, what its members earn now (its oldest, Points,
// would count nothing from the upgrade on, and the hourly job would demote everyone with a window).
// vendors is program data: its triggers (0017) tell the program cache, and the row travels to stores (replicated-tables.ts).
export const tierCurrency: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('vendors').addColumn('tier_currency_id', 'bigint').execute();
    await sql`
      update vendors set tier_currency_id = (
        select c.id from currencies c where c.vendor_id = vendors.id and c.code is null and c.deleted_at is null
          order by case when c.status = 'ARCHIVED' then 1 else 0 end, c.created_at, c.id limit 1)
      where (select count(*) from currencies c where c.vendor_id = vendors.id and c.code is null and c.deleted_at is null) > 1`.execute(db);
  },
};
