import type { Kysely, Migration } from 'kysely';

// What a sync exception's message says, as data (shared/sync-exception-said.ts: a key and its
// values, JSON), beside the English text: the back office's chain page writes it in the screen's
// language. Null for exceptions recorded before, which keep showing their stored English. Central's
// own table: never replicated.
export const syncExceptionMessageData: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('sync_exceptions').addColumn('message_data', 'text').execute();
  },
};
