import type { Kysely, Migration } from 'kysely';

// When a webhook delivery's 3 days of retries began (docs/decisions.md, "Tenth round: webhooks as a
// consumer meets them"): null is when it was queued (created_at); enabling a paused or disabled
// endpoint starts its held deliveries' 3 days afresh, so a delivery held longer than that is not
// given up at its first failed attempt. Read only by the delivery worker.
export const webhookRetryWindow: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_deliveries').addColumn('retry_from', 'bigint').execute();
  },
};
