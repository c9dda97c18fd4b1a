import type { Kysely, Migration } from 'kysely';

// Issue 13: the counter's favourites read a customer's last 50 orders (retrieve-customer.ts). With
// the index on (user_id, vendor_id) alone, the database read and sorted every order of the customer
// to keep 50 — a regular's hundreds on every retrieve. With ordered_at in the index it reads the 50
// newest, already in order. The old index is a prefix of the new one, so it goes.
export const ordersByCustomerTime: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('orders_user_time').on('orders').columns(['user_id', 'vendor_id', 'ordered_at']).execute();
    await db.schema.dropIndex('orders_user').execute();
  },
};
