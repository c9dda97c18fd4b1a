import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf, keyColumnType } from '../dialect';

// Customer accounts: one account (users) shared across vendors, its per-vendor part
// (user_vendors), login sessions, one-time codes (reset, verification, deletion), app barcode
// tokens, cards linked to a customer, tiers and profile metadata.
export const accounts: Migration = {
  async up(db: Kysely<unknown>) {
    const key = keyColumnType(dialectOf(db));

    // Verification methods a vendor enables (JSON array of "Email", "Sms"); [] = no verification.
    await db.schema.alterTable('vendors').addColumn('verification_methods', 'text', (c) => c.notNull().defaultTo('["Email","Sms"]')).execute();

    await db.schema
      .createTable('tiers')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('threshold', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('email', 'text')
      .addColumn('email_key', key)
      .addColumn('password_hash', 'text')
      .addColumn('first_name', 'text', (c) => c.notNull())
      .addColumn('last_name', 'text', (c) => c.notNull())
      .addColumn('phone', 'text')
      .addColumn('cedula', 'text')
      .addColumn('passport_number', 'text')
      .addColumn('birthdate', 'bigint')
      .addColumn('address1', 'text')
      .addColumn('address2', 'text')
      .addColumn('city', 'text')
      .addColumn('region_id', 'bigint')
      .addColumn('country_id', 'bigint')
      .addColumn('postal_code', 'text')
      .addColumn('pet_name', 'text')
      .addColumn('pet_birthdate', 'bigint')
      .addColumn('email_verified_at', 'bigint')
      .addColumn('phone_verified_at', 'bigint')
      .addColumn('first_vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('failed_logins', 'integer', (c) => c.notNull())
      .addColumn('locked_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // Deleted accounts lose their email and phone, so these stay unique among living accounts.
    await db.schema.createIndex('users_email').unique().on('users').column('email_key').where(sql.ref('email_key'), 'is not', null).execute();
    await db.schema.createIndex('users_phone').on('users').column('phone').execute();
    await db.schema.createIndex('users_cedula').on('users').column('cedula').execute();
    await db.schema.createIndex('users_passport').on('users').column('passport_number').execute();

    await db.schema
      .createTable('user_vendors')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('contact_consent', 'integer', (c) => c.notNull())
      .addColumn('language', 'text')
      .addColumn('tier_id', 'bigint', (c) => c.references('tiers.id'))
      .addColumn('tier_since', 'bigint', (c) => c.notNull())
      .addColumn('reload_amount', 'bigint', (c) => c.notNull())
      .addColumn('reload_threshold', 'bigint', (c) => c.notNull())
      .addColumn('billing_profile_id', 'bigint')
      .addColumn('flagged', 'integer', (c) => c.notNull())
      .addColumn('referral_code', 'text', (c) => c.notNull().unique())
      .addColumn('newsletters', 'text', (c) => c.notNull())
      .addColumn('push_endpoints', 'text', (c) => c.notNull())
      .addColumn('first_login_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      // Set when the customer deleted their account with this vendor; a later login links anew.
      .addColumn('removed_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('user_vendors_user_vendor')
      .unique()
      .on('user_vendors')
      .columns(['user_id', 'vendor_id'])
      .where(sql.ref('removed_at'), 'is', null)
      .execute();
    await db.schema.createIndex('user_vendors_vendor').on('user_vendors').column('vendor_id').execute();

    await db.schema
      .createTable('metadata_fields')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('validation', 'text')
      .addColumn('input_type', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('metadata_fields_vendor_name', ['vendor_id', 'name'])
      .execute();
    await db.schema
      .createTable('user_metadata')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('user_vendor_id', 'bigint', (c) => c.notNull().references('user_vendors.id'))
      .addColumn('field_id', 'bigint', (c) => c.notNull().references('metadata_fields.id'))
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('user_metadata_field', ['user_vendor_id', 'field_id'])
      .execute();

    await db.schema
      .createTable('user_sessions')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('order_token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .execute();
    await db.schema.createIndex('user_sessions_user').on('user_sessions').column('user_id').execute();

    // Single-use secrets sent to the customer; only their digest is kept.
    await db.schema
      .createTable('one_time_codes')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('target', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('one_time_codes_hash').on('one_time_codes').columns(['purpose', 'code_hash']).execute();
    await db.schema.createIndex('one_time_codes_user').on('one_time_codes').columns(['user_id', 'purpose']).execute();

    // App barcodes: a token the customer shows at the counter; check-in looks it up by digest.
    await db.schema
      .createTable('barcode_tokens')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('token_type', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('user_cards')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('card_id', 'bigint', (c) => c.notNull().references('cards.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('removed_at', 'bigint')
      .execute();
    // A card belongs to at most one customer at a time.
    await db.schema.createIndex('user_cards_card').unique().on('user_cards').column('card_id').where(sql.ref('removed_at'), 'is', null).execute();
    await db.schema.createIndex('user_cards_user').on('user_cards').columns(['user_id', 'vendor_id']).execute();
  },
};
