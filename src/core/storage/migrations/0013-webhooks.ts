import type { Kysely, Migration } from 'kysely';

// Webhooks (issue 14): a program's endpoints, the events written in the transaction that causes
// them (the webhook outbox), and one delivery row per event and endpoint that the worker sends
// with retries. Signing secrets are sealed with the node key, never stored in clear.
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_endpoints')
      // `wh_…`
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('url', 'text', (c) => c.notNull())
      // JSON array of event kinds.
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      // Who is emailed when the endpoint is disabled for failing; none: nobody.
      .addColumn('alert_email', 'text')
      // 'enabled' | 'paused' | 'disabled'
      .addColumn('status', 'text', (c) => c.notNull())
      // 'failing' (3 days of failures) | 'gone' (the receiver answered 410); null unless disabled.
      .addColumn('disabled_reason', 'text')
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      // After a rotation, the old secret keeps signing until previous_secret_expires_at.
      .addColumn('previous_secret_sealed', 'text')
      .addColumn('previous_secret_expires_at', 'bigint')
      // First failed attempt since the last success; null while the endpoint answers 2xx.
      .addColumn('failing_since', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema.createIndex('webhook_endpoints_vendor').on('webhook_endpoints').columns(['vendor_id', 'status']).execute();

    await db.schema
      .createTable('webhook_events')
      // `evt_…`
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('api_version', 'text', (c) => c.notNull())
      // JSON of the event's `data`.
      .addColumn('data', 'text', (c) => c.notNull())
      // When it happened (an offline store's original time), epoch ms.
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // When this node wrote it.
      .addColumn('recorded_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_events_vendor_time').on('webhook_events').columns(['vendor_id', 'created_at']).execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
      .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
      // 'pending' | 'sending' (claimed: a lease until next_attempt_at) | 'succeeded' | 'failed' | 'cancelled'
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('last_attempt_at', 'bigint')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();
  },
};
