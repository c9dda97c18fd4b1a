import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

// Chain sync (docs/sync.md). Every node gets the tables; which of them fill depends on the role:
// a central node logs changes for its stores (sync_changes) and keeps their pairing, verdicts and
// exceptions; a paired store node logs its own changes into the same table, grouped into events.
export const sync: Migration = {
  async up(db: Kysely<unknown>) {
    const serial = dialectOf(db) === 'postgres' ? sql`bigserial primary key` : sql`integer primary key autoincrement`;
    // Row changes captured by triggers (installed when a node becomes central or paired), in commit order.
    await db.schema
      .createTable('sync_changes')
      .addColumn('seq', serial, (c) => c)
      .addColumn('tbl', 'text', (c) => c.notNull())
      .addColumn('row_id', 'bigint', (c) => c.notNull())
      .addColumn('op', 'text', (c) => c.notNull())
      .addColumn('vendor_id', 'bigint')
      .addColumn('data', 'text', (c) => c.notNull())
      // On a store node: the local event (sync_events.node_seq) the change belongs to; null until sealed.
      .addColumn('event_seq', 'bigint')
      .execute();
    await db.schema.createIndex('sync_changes_vendor').on('sync_changes').columns(['vendor_id', 'seq']).execute();
    await db.schema.createIndex('sync_changes_event').on('sync_changes').columns(['event_seq', 'seq']).execute();
    await db.schema.createIndex('sync_changes_row').on('sync_changes').columns(['tbl', 'row_id']).execute();
    // While a store node applies what it pulled, its capture triggers stay quiet (one row, 0 or 1).
    await db.schema.createTable('sync_apply_mode').addColumn('active', 'integer', (c) => c.notNull()).execute();
    await sql`insert into sync_apply_mode (active) values (0)`.execute(db);

    await db.schema.alterTable('sync_events').addColumn('verdict', 'text').execute();
    await db.schema.alterTable('sync_events').addColumn('verdict_code', 'text').execute();
    await db.schema.alterTable('sync_events').addColumn('verdict_message', 'text').execute();

    // Central: the store nodes paired with it.
    await db.schema
      .createTable('sync_nodes')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('store_id', 'bigint', (c) => c.notNull().references('stores.id'))
      .addColumn('credential_hash', 'text', (c) => c.notNull().unique())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_seen_at', 'bigint')
      .addColumn('cursor', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('paired_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await sql`insert into id_sequences (name, value) values ('sync_nodes', 0)`.execute(db);
    await db.schema
      .createTable('sync_pairing_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('store_id', 'bigint', (c) => c.notNull().references('stores.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    // Central: the verdicts of events a node pushed, so a repeated push gets the same answer (only
    // refusals are written: an event at or below the node's last without one was applied).
    await db.schema
      .createTable('sync_verdicts')
      .addColumn('node_id', 'bigint', (c) => c.notNull())
      .addColumn('node_seq', 'bigint', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('verdict', 'text', (c) => c.notNull())
      .addColumn('code', 'text')
      .addColumn('message', 'text')
      .addColumn('applied_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_verdicts_pk', ['node_id', 'node_seq'])
      .execute();
    // Central: what offline selling left for staff to look at (overdrafts, conflicts).
    await db.schema
      .createTable('sync_exceptions')
      .addColumn('id', serial, (c) => c)
      .addColumn('vendor_id', 'bigint', (c) => c.notNull())
      .addColumn('store_id', 'bigint')
      .addColumn('node_id', 'bigint')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('resolved_at', 'bigint')
      .execute();
    await db.schema.createIndex('sync_exceptions_open').on('sync_exceptions').columns(['vendor_id', 'resolved_at']).execute();

    // A customer registered twice while offline is merged into the survivor; the old id keeps resolving.
    await db.schema.alterTable('users').addColumn('merged_into', 'bigint').execute();
    await db.schema.alterTable('user_vendors').addColumn('flagged_reason', 'text').execute();
    // Offline caps (minor units / points; null = no cap), applied by a store only while central is unreachable.
    for (const column of ['offline_quick_pay_per_order', 'offline_quick_pay_per_day', 'offline_points_per_order', 'offline_points_per_day']) {
      await db.schema.alterTable('vendors').addColumn(column, 'bigint').execute();
    }
    await db.schema.alterTable('orders').addColumn('offline', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
