import type { Kysely, Migration } from 'kysely';

// Scanners assigned to stations (issue 17, item 5): which station — the counter or the kiosk — each
// scanner a store node reads serves, so a kiosk greets only its own scanner's scans. Keyed by the
// store the node's scanners check in at and the device's stable identity (vendor:product:serial, see
// src/devices/hid/classify.ts). Node-local: never synced (a device belongs to one machine).
export const scannerStations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('scanner_stations')
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('store_id', 'bigint', (c) => c.notNull().references('stores.id'))
      .addColumn('device', 'text', (c) => c.notNull())
      .addColumn('station', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('scanner_stations_pk', ['vendor_id', 'store_id', 'device'])
      .execute();
  },
};
