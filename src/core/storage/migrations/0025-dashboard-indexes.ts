import type { Kysely, Migration } from 'kysely';

// The back office's dashboard counts the last 30 days of check-ins, orders and stored-value moves,
// but no index led with the time: it read every order, check-in and quick-pay entry the program
// ever had, 2.0 s on a year-old central (2M orders and check-ins, 1M members; SQLite holds its
// event loop meanwhile). These find the window. Rows arrive in time order, so each insert appends
// at the index's end.
export const dashboardIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('orders_vendor_time').on('orders').columns(['vendor_id', 'created_at']).execute();
    await db.schema.createIndex('pos_sessions_vendor_time').on('pos_sessions').columns(['vendor_id', 'created_at']).execute();
    await db.schema.createIndex('ledger_entries_vendor_time').on('ledger_entries').columns(['vendor_id', 'created_at']).execute();
  },
};
