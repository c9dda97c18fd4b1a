import type { Kysely, Migration } from 'kysely';

// App barcodes by expiry: the hourly purge (customers/purge-expired-barcode-tokens.ts) deletes those
// a day past it, a range of this index, instead of reading every barcode an app ever drew.
export const barcodeTokensByExpiry: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('barcode_tokens_expiry').on('barcode_tokens').column('expires_at').execute();
  },
};
