import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

// Central: which events it took at which node_seqs of each node (docs/sync.md, "A store restored
// from a backup"). A repeated node_seq used to be answered as a repeat without looking at the
// event: a store restored from a backup numbers its new sales with node_seqs central had already
// applied, and they were dropped. One row per push that took events: its first node_seq and the
// ids of the events it took, in order (one row for a page of 1,000, not 1,000 rows); kept for the
// node's last 90 days of pushes (central/sync-event-ids.ts).
export const syncEventIds: Migration = {
  async up(db: Kysely<unknown>) {
    let table = db.schema
      .createTable('sync_event_ids')
      .addColumn('node_id', 'bigint', (c) => c.notNull())
      .addColumn('first_seq', 'bigint', (c) => c.notNull())
      .addColumn('event_ids', 'text', (c) => c.notNull())
      .addColumn('answered_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_event_ids_pk', ['node_id', 'first_seq']);
    // Read and trimmed only by its key: on SQLite the key is the table (no rowid b-tree beside it).
    if (dialectOf(db) === 'sqlite') table = table.modifyEnd(sql`without rowid`);
    await table.execute();
  },
};
