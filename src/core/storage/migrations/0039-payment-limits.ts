import type { Kysely, Migration } from 'kysely';

// The program's largest eGift and largest single reload (auto reload's amounts too), in minor units of
// its quick-pay currency; null: the default for that currency (rules/settings/payment-limits.ts).
export const paymentLimits: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('vendors').addColumn('egift_max_amount', 'bigint').execute();
    await db.schema.alterTable('vendors').addColumn('reload_max_amount', 'bigint').execute();
  },
};
