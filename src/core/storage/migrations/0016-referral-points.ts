import type { Kysely, Migration } from 'kysely';

// The program's referral rule (issue 17, item 4): points credited to a member when someone joins
// through their referral link. 0: referrals earn nothing.
export const referralPoints: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('vendors')
      .addColumn('referral_points', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
