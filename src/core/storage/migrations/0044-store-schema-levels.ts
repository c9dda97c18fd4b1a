import type { Kysely, Migration } from 'kysely';

// The schema level each store last synced with (its `punchcard-schema` header, docs/sync.md "Mixed
// versions"), kept by central so the back office's chain page lists which stores run an older or
// newer version than central during an upgrade store by store. Null: not heard since this
// migration, or a store from before the header. Central's own table: never replicated.
export const storeSchemaLevels: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('sync_nodes').addColumn('schema_level', 'text').execute();
  },
};
