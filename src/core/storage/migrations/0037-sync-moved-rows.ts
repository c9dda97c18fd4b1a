import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

// Central: the rows a store's event made that the store moved to new ids when it followed central
// after a restore, as the event said (`moved_ids`). A folder restored again from a backup older than
// that move sends the event with the rows' first ids; central answers it as the repeat it is and
// tells those ids' new places, so the store moves its copies as its lost copy did (docs/sync.md,
// "Restored twice from one backup"). A row only for such an event: rare.
export const syncMovedRows: Migration = {
  async up(db: Kysely<unknown>) {
    let table = db.schema
      .createTable('sync_moved_rows')
      .addColumn('node_id', 'bigint', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('moved_ids', 'text', (c) => c.notNull())
      .addColumn('recorded_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_moved_rows_pk', ['node_id', 'event_id']);
    // Read only by its key: on SQLite the key is the table.
    if (dialectOf(db) === 'sqlite') table = table.modifyEnd(sql`without rowid`);
    await table.execute();
  },
};
