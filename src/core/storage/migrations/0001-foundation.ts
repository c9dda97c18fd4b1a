import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf, keyColumnType } from '../dialect';

// Foundation: node identity, tenancy (vendors, stores, points of sale), credentials, currencies,
// cards, earning rules, the ledger and the sync outbox. Runs unchanged on SQLite and PostgreSQL.
export const foundation: Migration = {
  async up(db: Kysely<unknown>) {
    const dialect = dialectOf(db);
    const key = keyColumnType(dialect);

    await db.schema
      .createTable('node_meta')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('id_sequences')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .execute();
    await sql`insert into id_sequences (name, value) values ('objects', 0), ('sync_events', 0)`.execute(db);

    await db.schema
      .createTable('vendors')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('country', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull())
      .addColumn('quick_pay_currency_id', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('stores')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('address1', 'text', (c) => c.notNull())
      .addColumn('address2', 'text')
      .addColumn('city', 'text', (c) => c.notNull())
      .addColumn('region', 'text')
      .addColumn('country', 'text', (c) => c.notNull())
      .addColumn('postal_code', 'text')
      .addColumn('phone', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('stores_vendor').on('stores').column('vendor_id').execute();

    await db.schema
      .createTable('points_of_sale')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('store_id', 'bigint', (c) => c.notNull().references('stores.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('points_of_sale_store').on('points_of_sale').column('store_id').execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('store_id', 'bigint', (c) => c.notNull().references('stores.id'))
      .addColumn('pos_id', 'bigint', (c) => c.references('points_of_sale.id'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_hint', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('error_mode', 'text', (c) => c.notNull())
      .addColumn('workstation_identifier', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();

    await db.schema
      .createTable('oauth_clients')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('client_id', 'text', (c) => c.notNull().unique())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();

    await db.schema
      .createTable('access_tokens')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('oauth_client_id', 'bigint', (c) => c.references('oauth_clients.id'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();

    await db.schema
      .createTable('currencies')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_key', key, (c) => c.notNull())
      .addColumn('code', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    // Names are unique among the currencies that still exist; a deleted name can be used again.
    await db.schema
      .createIndex('currencies_vendor_name')
      .unique()
      .on('currencies')
      .columns(['vendor_id', 'name_key'])
      .where(sql.ref('deleted_at'), 'is', null)
      .execute();
    await db.schema
      .createIndex('currencies_vendor_created')
      .on('currencies')
      .columns(['vendor_id', 'created_at', 'id'])
      .execute();

    await db.schema
      .createTable('cards')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('number', 'text', (c) => c.notNull())
      .addColumn('number_key', key, (c) => c.notNull())
      .addColumn('pin_sealed', 'text')
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('cards_vendor_number')
      .unique()
      .on('cards')
      .columns(['vendor_id', 'number_key'])
      .where(sql.ref('deleted_at'), 'is', null)
      .execute();
    await db.schema
      .createIndex('cards_vendor_created')
      .on('cards')
      .columns(['vendor_id', 'created_at', 'id'])
      .execute();

    await db.schema
      .createTable('earning_rules')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('currency_id', 'bigint', (c) => c.notNull().references('currencies.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('points', 'bigint', (c) => c.notNull())
      .addColumn('per_amount', 'bigint', (c) => c.notNull())
      .addColumn('rounding', 'text', (c) => c.notNull())
      .addColumn('max_award', 'bigint')
      .addColumn('starts_at', 'bigint')
      .addColumn('ends_at', 'bigint')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    // The ledger: an account per (holder, currency) with a cached balance, and immutable entries.
    await db.schema
      .createTable('ledger_accounts')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('currency_id', 'bigint', (c) => c.notNull().references('currencies.id'))
      .addColumn('holder_type', 'text', (c) => c.notNull())
      .addColumn('holder_id', 'bigint', (c) => c.notNull())
      .addColumn('balance', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('ledger_accounts_holder_currency', ['holder_type', 'holder_id', 'currency_id'])
      .execute();
    await db.schema.createIndex('ledger_accounts_currency').on('ledger_accounts').column('currency_id').execute();

    await db.schema
      .createTable('ledger_entries')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('account_id', 'bigint', (c) => c.notNull().references('ledger_accounts.id'))
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('reference_type', 'text')
      .addColumn('reference_id', 'text')
      .addColumn('reverses_id', 'bigint', (c) => c.references('ledger_entries.id'))
      .addColumn('origin_node', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .execute();
    await db.schema.createIndex('ledger_entries_account').on('ledger_entries').columns(['account_id', 'id']).execute();
    await forbidChanges(db, 'ledger_entries');

    // Outbox of events central must learn about, numbered gaplessly per node.
    await db.schema
      .createTable('sync_events')
      .addColumn('node_seq', 'bigint', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull().unique())
      .addColumn('node_id', 'bigint', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('offline', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('acked_at', 'bigint')
      .execute();
  },
};

/** Makes a table append-only in the database itself: an UPDATE or DELETE of a row aborts. */
async function forbidChanges(db: Kysely<unknown>, table: string): Promise<void> {
  const message = `${table} rows are immutable: write a compensating entry instead`;
  if (dialectOf(db) === 'sqlite') {
    for (const action of ['update', 'delete']) {
      await sql
        .raw(
          `create trigger ${table}_no_${action} before ${action} on ${table} ` +
            `begin select raise(abort, '${message}'); end`,
        )
        .execute(db);
    }
    return;
  }
  await sql
    .raw(
      `create function ${table}_immutable() returns trigger language plpgsql as $$ ` +
        `begin raise exception '${message}'; end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${table}_no_change before update or delete on ${table} ` +
        `for each row execute function ${table}_immutable()`,
    )
    .execute(db);
}
