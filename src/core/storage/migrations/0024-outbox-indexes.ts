import { type Kysely, type Migration, sql } from 'kysely';

// A store's outbox keeps the events it pushed (with central's verdict; pruned after a month since,
// outbox/prune-answered-events.ts), and central its refusals. Reading the few pending events, or the
// few rejected ones, walked all of them: at 1M past events 100 ms for every
// push and 155 ms for every GET /sync/status (which each open screen asks after every sync round),
// on the store's event loop. Partial indexes hold only the rows those reads want.
export const outboxIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('sync_events_pending').on('sync_events').columns(['node_seq', 'created_at']).where(sql.ref('acked_at'), 'is', null).execute();
    await db.schema.createIndex('sync_events_rejected').on('sync_events').column('node_seq').where(sql.ref('verdict'), '=', sql.lit('rejected')).execute();
    await db.schema.createIndex('sync_verdicts_rejected').on('sync_verdicts').column('node_id').where(sql.ref('verdict'), '=', sql.lit('rejected')).execute();
  },
};
