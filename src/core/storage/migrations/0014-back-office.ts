import type { Kysely, Migration } from 'kysely';
import { dialectOf, keyColumnType } from '../dialect';

// The merchant's back office: staff accounts with roles, their sessions and emailed tokens
// (invitation, password reset, one-time sign-in link), an audit log of every back-office change,
// and what stores need to be administered (time zone, status) and API keys to be told apart (last use).
export const backOffice: Migration = {
  async up(db: Kysely<unknown>) {
    const key = keyColumnType(dialectOf(db));

    // IANA time zone of the store (opening hours are read in it); existing stores read as UTC.
    await db.schema.alterTable('stores').addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC')).execute();
    // 'active' (listed to customers) or 'inactive' (hidden from GET /vendor/store/list).
    await db.schema.alterTable('stores').addColumn('status', 'text', (c) => c.notNull().defaultTo('active')).execute();
    await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();

    await db.schema
      .createTable('staff_accounts')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('email_key', key, (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // owner | manager | store_manager
      .addColumn('role', 'text', (c) => c.notNull())
      // The one store a store manager runs; null for owners and managers.
      .addColumn('store_id', 'bigint', (c) => c.references('stores.id'))
      // Null until an invitation is accepted.
      .addColumn('password_hash', 'text')
      // invited | active | disabled
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('failed_logins', 'integer', (c) => c.notNull())
      .addColumn('locked_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // One staff account per email on a node: signing in needs only the email and password.
    await db.schema.createIndex('staff_accounts_email').unique().on('staff_accounts').column('email_key').execute();
    await db.schema.createIndex('staff_accounts_vendor').on('staff_accounts').columns(['vendor_id', 'created_at']).execute();

    await db.schema
      .createTable('staff_sessions')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('staff_id', 'bigint', (c) => c.notNull().references('staff_accounts.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .execute();
    await db.schema.createIndex('staff_sessions_staff').on('staff_sessions').column('staff_id').execute();

    await db.schema
      .createTable('staff_tokens')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('staff_id', 'bigint', (c) => c.notNull().references('staff_accounts.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      // invitation | password_reset | sign_in_link
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();

    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      // Null when the change came from the CLI on the node's machine.
      .addColumn('staff_id', 'bigint', (c) => c.references('staff_accounts.id'))
      // Who, as shown: the staff member's email, or "cli".
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('object_type', 'text', (c) => c.notNull())
      .addColumn('object_id', 'text', (c) => c.notNull())
      // JSON of the object before and after the change; null for a creation / a removal.
      .addColumn('before', 'text')
      .addColumn('after', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_vendor').on('audit_log').columns(['vendor_id', 'created_at', 'id']).execute();
  },
};
