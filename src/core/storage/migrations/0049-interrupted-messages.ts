import type { Kysely, Migration } from 'kysely';

// How many times a message's sending was cut off by the node stopping (its claim found still
// `sending` after the lease, messaging/deliver.ts): a message whose sending kills the node is given
// up after a few, not retried through its whole window (200 crashes, ~17 hours of them). Ordinary
// failures are counted in `attempts` as before. Node-local, read only by the delivery worker.
export const interruptedMessages: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('messages_outbox').addColumn('interrupted_sends', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
