import type { Kysely, Migration } from 'kysely';

// A customer's app barcodes, by customer: a password change or reset, a deactivation and an erasure
// delete them all (customers/sessions.ts, endAllSessions) inside their write transaction, which
// otherwise read every barcode ever drawn.
export const barcodeTokensByCustomer: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('barcode_tokens_user').on('barcode_tokens').columns(['user_id', 'vendor_id']).execute();
  },
};
