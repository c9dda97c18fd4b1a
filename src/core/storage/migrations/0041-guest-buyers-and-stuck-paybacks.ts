import type { Kysely, Migration } from 'kysely';

// docs/decisions.md, "Tenth round: payment exceptions, guests and stuck pay-backs":
// - payment_charges.buyer_name / buyer_email: a guest eGift buyer's contact as the purchase took
//   it, so staff can reach the buyer of a charge that never became a gift (no account to look up;
//   the gift row that also holds it is the very thing missing). Never card data. Null for a
//   customer's own charge (their account says who they are) and for charges made before this.
// - stored_value_paybacks (status, created_at): the back office lists the unfinished card
//   pay-backs across customers, and the job scans them oldest first, by status.
export const guestBuyersAndStuckPaybacks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('payment_charges').addColumn('buyer_name', 'text').execute();
    await db.schema.alterTable('payment_charges').addColumn('buyer_email', 'text').execute();
    await db.schema.createIndex('stored_value_paybacks_status').on('stored_value_paybacks').columns(['status', 'created_at']).execute();
  },
};
