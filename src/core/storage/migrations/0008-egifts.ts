import { type Kysely, type Migration, sql } from 'kysely';

// eGifts: a gift of stored value bought for someone by email (a guest's card or a customer's
// billing profile), paid through a payment_charges row, and claimed by the recipient into their
// quick-pay balance with a code sent only to them. The code is kept as a keyed digest; no column
// holds a card number or CVV (the card is named by brand and last four digits).
export const egifts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('egifts')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      // The vendor's quick-pay currency at purchase; the claim credits this currency.
      .addColumn('currency_id', 'bigint', (c) => c.notNull().references('currencies.id'))
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('charge_id', 'bigint', (c) => c.notNull().references('payment_charges.id'))
      // The logged-in buyer and the profile charged; null for a guest's card.
      .addColumn('buyer_user_id', 'bigint', (c) => c.references('users.id'))
      .addColumn('billing_profile_id', 'bigint', (c) => c.references('billing_profiles.id'))
      .addColumn('buyer_name', 'text', (c) => c.notNull())
      .addColumn('buyer_email', 'text', (c) => c.notNull())
      .addColumn('recipient_name', 'text', (c) => c.notNull())
      .addColumn('recipient_email', 'text', (c) => c.notNull())
      .addColumn('message', 'text')
      .addColumn('image_url', 'text')
      .addColumn('card_brand', 'text', (c) => c.notNull())
      .addColumn('card_last4', 'text', (c) => c.notNull())
      // 'pending' (the gateway reports late) | 'sent' | 'claimed' | 'declined' (a late decline)
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('decline_reason', 'text')
      // HMAC of the normalised claim code under the node key; set when the gift is sent.
      .addColumn('claim_code_hash', 'text')
      .addColumn('sent_at', 'bigint')
      .addColumn('claimed_by_user_id', 'bigint', (c) => c.references('users.id'))
      .addColumn('claimed_at', 'bigint')
      // The claimer's history record of the credit.
      .addColumn('claim_transaction_id', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('egifts_charge').unique().on('egifts').column('charge_id').execute();
    await db.schema
      .createIndex('egifts_claim_code')
      .unique()
      .on('egifts')
      .column('claim_code_hash')
      .where(sql.ref('claim_code_hash'), 'is not', null)
      .execute();
    await db.schema.createIndex('egifts_status').on('egifts').columns(['status', 'updated_at']).execute();
  },
};
