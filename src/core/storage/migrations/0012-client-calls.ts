import { type Kysely, type Migration, sql } from 'kysely';

// What real clients call beyond the contract (issue 12): a customer's rating and tip of a
// transaction, the customer inbox, promotion codes, and eGifts sent on a later date.
export const clientCalls: Migration = {
  async up(db: Kysely<unknown>) {
    // Rating (1-5 and a comment, changeable within its window) and tip (once, minor units; recorded,
    // no money moves) of a history record.
    await db.schema.alterTable('transactions').addColumn('rating_value', 'integer').execute();
    await db.schema.alterTable('transactions').addColumn('rating_comment', 'text').execute();
    await db.schema.alterTable('transactions').addColumn('rated_at', 'bigint').execute();
    await db.schema.alterTable('transactions').addColumn('tip_amount', 'bigint').execute();
    await db.schema.alterTable('transactions').addColumn('tipped_at', 'bigint').execute();

    // One row per message per customer; a message "to all" is copied to every member when sent.
    await db.schema
      .createTable('inbox_messages')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      // 'program' (sent through the admin API) | 'welcome' | 'tier' | 'reward' | 'egift'
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      // Keeps the program's own messages to one per event (e.g. "reward:<id>:<count>").
      .addColumn('dedupe_key', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('read_at', 'bigint')
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema.createIndex('inbox_messages_user').on('inbox_messages').columns(['user_id', 'vendor_id', 'created_at']).execute();
    await db.schema
      .createIndex('inbox_messages_dedupe')
      .unique()
      .on('inbox_messages')
      .columns(['user_id', 'vendor_id', 'dedupe_key'])
      .where(sql.ref('dedupe_key'), 'is not', null)
      .execute();

    // A promotion: a code customers enter in the app for points or a reward, in a window, with caps.
    await db.schema
      .createTable('promotions')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('code', 'text', (c) => c.notNull())
      // The code as compared: upper case, no spaces or dashes.
      .addColumn('code_key', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      // Exactly one of: points in a loyalty currency, or a reward (spending rule).
      .addColumn('points', 'bigint')
      .addColumn('currency_id', 'bigint', (c) => c.references('currencies.id'))
      .addColumn('reward_id', 'bigint', (c) => c.references('spending_rules.id'))
      .addColumn('starts_at', 'bigint')
      .addColumn('ends_at', 'bigint')
      .addColumn('total_cap', 'integer')
      .addColumn('per_customer_cap', 'integer', (c) => c.notNull())
      .addColumn('awarded_count', 'integer', (c) => c.notNull())
      // 'ACTIVE' | 'PAUSED'
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('promotions_code').unique().on('promotions').columns(['vendor_id', 'code_key']).execute();
    await db.schema
      .createTable('promotion_awards')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('promotion_id', 'bigint', (c) => c.notNull().references('promotions.id'))
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
      .addColumn('transaction_id', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('promotion_awards_user').on('promotion_awards').columns(['promotion_id', 'user_id']).execute();

    // An eGift with a future send date waits as 'scheduled' until then.
    await db.schema.alterTable('egifts').addColumn('send_at', 'bigint').execute();
  },
};
