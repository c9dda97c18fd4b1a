import type { Kysely, Migration } from 'kysely';

// The customer a message was for (verification, password reset, account deletion, card reminders),
// beside its recipient: an erasure blanks every message to the person, also those sent to an email
// or phone they have since changed (matching today's contacts only missed them). Read only then.
export const messagesByCustomer: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('messages_outbox').addColumn('user_id', 'bigint').execute();
    await db.schema.createIndex('messages_outbox_user').on('messages_outbox').column('user_id').execute();
  },
};
