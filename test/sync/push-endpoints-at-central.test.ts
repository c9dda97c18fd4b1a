import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { transact } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { migrateToLatest } from '../../src/core/storage/database';
import { installChangeCapture } from '../../src/core/sync/capture/install-capture';
import { acceptPushedEvents } from '../../src/core/sync/central/apply-push';
import { authenticateNode } from '../../src/core/sync/central/pairing';
import { compactChangeLog } from '../../src/core/sync/central/compact-change-log';
import { readChangesForNode } from '../../src/core/sync/central/read-changes';
import { readCustomerRows } from '../../src/core/sync/central/read-customer-rows';
import { readSnapshotPageJson } from '../../src/core/sync/central/read-snapshot';
import { readPendingEvents } from '../../src/core/sync/outbox/pending-events';
import { type Backend, BACKENDS, sqliteBackend } from '../support/backends';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// A customer's app push tokens (user_vendors.push_endpoints) stay at central (docs/sync.md, "What
// stays at central"): only central would notify a customer, and every store of the program got
// every member's device tokens with each membership. They now travel as the empty value, a store
// holds that, a store's new membership reaches central with it, and no store push changes central's
// tokens. Migration 0031 scrubs what earlier versions copied: central's log (each row's first version
// is kept for ever), a store's copies and its unsent changes.

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const NONE = '{"gcm":[],"apns":[]}';
const TOKENS = (tag: string) => JSON.stringify({ gcm: [`gcm-token-${tag}`], apns: [`apns-token-${tag}`] });

describe.each(BACKENDS)('app push tokens stay at central ($name)', (backend) => {
  async function opened(b: Backend) {
    const handle = await b.open();
    open.push(handle);
    return handle.database;
  }

  async function chain() {
    const clock = new ManualClock();
    const central: CentralHandle = await startCentral(clock, await opened(backend));
    open.push(central);
    return { clock, central };
  }

  /** A store of the chain on an SQLite file (or `on`), paired and first-synced. */
  async function store(central: CentralHandle, clock: ManualClock, which: { storeId: number; apiKey: string }, on: Backend = sqliteBackend): Promise<StoreHandle> {
    const handle = await pairStore(central, clock, which, central.transportFor, await opened(on));
    open.push(handle);
    return handle;
  }

  const endpoints = async (engine: { db: CentralHandle['engine']['db'] }, membershipId: number) =>
    (await engine.db.selectFrom('user_vendors').select('push_endpoints').where('id', '=', membershipId).executeTakeFirstOrThrow()).push_endpoints;

  const setTokens = (central: CentralHandle, membershipId: number, tokens: string, at: number) =>
    central.engine.db.updateTable('user_vendors').set({ push_endpoints: tokens, updated_at: at }).where('id', '=', membershipId).execute();

  async function centralMember(central: CentralHandle, email: string): Promise<number> {
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const joined = await registerInStore(central.engine, scope, { email, firstName: 'Ada' });
    const row = await central.engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', Number(joined.session.user_id)).executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Everything central would give a store of the program: the log from its start, the snapshot, one customer. */
  async function whatStoresCanRead(central: CentralHandle, email: string): Promise<string> {
    const node = { id: 0, vendorId: central.vendor.vendorId, storeId: central.vendor.storeId };
    const parts = [JSON.stringify((await readChangesForNode(central.engine.db, node, 0, 10_000)).changes)];
    for (const format of ['objects', 'columns'] as const) {
      parts.push(await readSnapshotPageJson(central.engine.db, central.engine.dialect, node, { table: 'user_vendors', after: 0, limit: 10_000 }, format));
    }
    parts.push(JSON.stringify(await readCustomerRows(central.engine, node, email)));
    return parts.join('\n');
  }

  it('central’s tokens reach no store: not by the snapshot, the log, a waiting counter or a later change', async () => {
    const { clock, central } = await chain();
    const membershipId = await centralMember(central, 'ada@tokens.test');
    await setTokens(central, membershipId, TOKENS('first'), clock.now());

    const readable = await whatStoresCanRead(central, 'ada@tokens.test');
    expect(readable).not.toContain('token-first');
    expect(readable).toContain('push_endpoints');

    // A store that first-syncs by snapshot, then hears of a change by the log.
    const a = await store(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
    expect(await endpoints(a.engine, membershipId)).toBe(NONE);
    clock.advance(1000);
    await setTokens(central, membershipId, TOKENS('second'), clock.now());
    await a.client.syncOnce();
    expect(await endpoints(a.engine, membershipId)).toBe(NONE);
    expect(await endpoints(central.engine, membershipId)).toBe(TOKENS('second'));
    expect(await whatStoresCanRead(central, 'ada@tokens.test')).not.toContain('token-');
  });

  it('a membership made at a store reaches central whole; no store push writes central’s tokens', async () => {
    const { clock, central } = await chain();
    const a = await store(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
    const scope = await a.scope();
    await registerInStore(a.engine, scope, { email: 'bo@tokens.test', firstName: 'Bo' });
    await placeOrder(a.engine, scope, { identification: 'bo@tokens.test', receiptNumber: 'T-1', subtotal: 10 });
    await registerInStore(a.engine, scope, { email: 'cy@tokens.test', firstName: 'Cy' });
    // The store's own log carries the empty value, whatever its copy says.
    const pending = await readPendingEvents(a.engine, 100);
    const memberships = pending.flatMap((e) => e.changes).filter((c) => c.tbl === 'user_vendors');
    expect(memberships.length).toBeGreaterThanOrEqual(2);
    for (const change of memberships) expect(change.data['push_endpoints']).toBe(NONE);
    // A store that sends tokens anyway (forged, or a bug): central starts the membership without them,
    // by the bulk path (the first events) and event by event (the last).
    for (const change of memberships) change.data['push_endpoints'] = TOKENS('store');
    const last = pending.findIndex((e) => e.changes.some((c) => c.tbl === 'users' && c.data['email'] === 'cy@tokens.test'));
    expect(last).toBeGreaterThan(0);
    const node = await authenticateNode(central.engine, a.credential);
    const results = [
      ...(await acceptPushedEvents(central.engine, node, pending.slice(0, last))).results,
      ...(await acceptPushedEvents(central.engine, node, pending.slice(last), { oneByOne: true })).results,
    ];
    expect(results.map((r) => r.verdict)).toEqual(pending.map(() => 'applied'));
    const atCentral = await central.engine.db.selectFrom('user_vendors').selectAll().where('vendor_id', '=', central.vendor.vendorId).orderBy('id').execute();
    const atStore = await a.engine.db.selectFrom('user_vendors').selectAll().where('vendor_id', '=', central.vendor.vendorId).orderBy('id').execute();
    expect(atCentral).toHaveLength(2);
    expect(atCentral).toEqual(atStore);
    for (const row of atCentral) expect(row.push_endpoints).toBe(NONE);

    // Central learns the app's tokens; the store then changes the membership (what it may write).
    const membershipId = Number(atCentral[0]!.id);
    await setTokens(central, membershipId, TOKENS('central'), clock.now());
    await a.client.syncOnce();
    clock.advance(1000);
    await transact(a.engine, (trx) => trx.updateTable('user_vendors').set({ updated_at: clock.now(), push_endpoints: TOKENS('store') }).where('id', '=', membershipId).execute());
    await a.client.syncOnce();
    expect(await endpoints(central.engine, membershipId)).toBe(TOKENS('central'));
    expect((await a.engine.db.selectFrom('sync_events').select('verdict').where('acked_at', 'is', null).execute()).length).toBe(0);
    expect(await whatStoresCanRead(central, 'bo@tokens.test')).not.toContain('token-');
  });

  it('migration 0031 scrubs what earlier versions copied: central’s log, a store’s copies and unsent changes', async () => {
    const { clock, central } = await chain();
    const membershipId = await centralMember(central, 'di@tokens.test');
    const b = await store(central, clock, await addStore(central, 'B'), backend);
    // What an earlier version left: central's log versions (the first one is kept for ever, even
    // after compaction) and the store's copy with the tokens, and a store change not pushed yet.
    await setTokens(central, membershipId, TOKENS('old'), clock.now());
    await central.engine.db.updateTable('sync_changes').set({ data: sql<string>`replace(data, ${JSON.stringify(NONE).slice(1, -1)}, ${JSON.stringify(TOKENS('old')).slice(1, -1)})` }).where('tbl', '=', 'user_vendors').execute();
    await compactChangeLog(central.engine.db);
    expect(await whatStoresCanRead(central, 'di@tokens.test')).toContain('token-old');
    await b.engine.db.updateTable('sync_apply_mode').set({ active: 1 }).execute();
    await b.engine.db.updateTable('user_vendors').set({ push_endpoints: TOKENS('old') }).where('id', '=', membershipId).execute();
    await b.engine.db.updateTable('sync_apply_mode').set({ active: 0 }).execute();
    await registerInStore(b.engine, await b.scope(), { email: 'ed@tokens.test' });
    await b.engine.db.updateTable('sync_changes').set({ data: sql<string>`replace(data, ${JSON.stringify(NONE).slice(1, -1)}, ${JSON.stringify(TOKENS('unsent')).slice(1, -1)})` }).where('tbl', '=', 'user_vendors').execute();
    const storeLog = async () => (await b.engine.db.selectFrom('sync_changes').select(['seq', 'data']).orderBy('seq').execute()).map((c) => c.seq);
    const logBefore = await storeLog();
    expect(JSON.stringify(await readPendingEvents(b.engine, 100))).toContain('token-unsent');

    for (const [engine, role] of [[central.engine, 'central'], [b.engine, 'store']] as const) {
      // 0031 runs again; the later ones with it (Kysely runs migrations in order), their indexes and
      // columns dropped first (add those of any later migration here).
      await engine.db.deleteFrom('schema_migrations' as never).where('name' as never, '>=', '0031' as never).execute();
      await engine.db.schema.dropIndex('users_merged_into').execute();
      await engine.db.schema.dropIndex('barcode_tokens_user').execute();
      await engine.db.schema.dropIndex('barcode_tokens_expiry').execute();
      await engine.db.schema.dropIndex('users_first_name_folded').execute();
      await engine.db.schema.dropIndex('users_last_name_folded').execute();
      await engine.db.schema.alterTable('pos_sessions').dropColumn('kiosk_identified_at').execute();
      await engine.db.schema.dropTable('sync_moved_rows').execute();
      await engine.db.schema.dropIndex('messages_outbox_user').execute();
      await engine.db.schema.alterTable('messages_outbox').dropColumn('user_id').execute();
      // SQLite's capture triggers name the vendors' columns: dropped with them, reinstalled after.
      if (engine.dialect === 'sqlite') for (const op of ['ins', 'upd', 'del']) await sql.raw(`drop trigger if exists sync_capture_vendors_${op}`).execute(engine.db);
      await engine.db.schema.alterTable('vendors').dropColumn('egift_max_amount').execute();
      await engine.db.schema.alterTable('vendors').dropColumn('reload_max_amount').execute();
      // 0041's columns (its index goes with 0040's table).
      await engine.db.schema.alterTable('payment_charges').dropColumn('buyer_name').execute();
      await engine.db.schema.alterTable('payment_charges').dropColumn('buyer_email').execute();
      // 0043's column.
      await engine.db.schema.alterTable('webhook_deliveries').dropColumn('retry_from').execute();
      // 0044's column.
      await engine.db.schema.alterTable('sync_nodes').dropColumn('schema_level').execute();
      // 0045's column.
      await engine.db.schema.alterTable('sync_exceptions').dropColumn('message_data').execute();
      // 0040's tables (their indexes go with them).
      for (const table of ['stored_value_payback_refunds', 'stored_value_paybacks', 'test_gateway_refunds'] as const) await engine.db.schema.dropTable(table).execute();
      // 0046's indexes.
      for (const index of ['egifts_buyer', 'egifts_claimed_by', 'promotion_awards_by_user']) await engine.db.schema.dropIndex(index).execute();
      // 0047's table (its indexes go with it).
      await engine.db.schema.dropTable('import_jobs').execute();
      // 0048's indexes, the accounts' back to the one it replaced.
      await engine.db.schema.dropIndex('ledger_accounts_by_currency').execute();
      await engine.db.schema.createIndex('ledger_accounts_currency').on('ledger_accounts').column('currency_id').execute();
      await engine.db.schema.dropIndex('audit_log_object_type').execute();
      // 0049's column.
      await engine.db.schema.alterTable('messages_outbox').dropColumn('interrupted_sends').execute();
      // 0050's column.
      await engine.db.schema.alterTable('vendors').dropColumn('tier_currency_id').execute();
      await migrateToLatest(engine.db);
      await installChangeCapture(engine.db, engine.dialect, role);
    }
    expect(await whatStoresCanRead(central, 'di@tokens.test')).not.toContain('token-');
    expect(await endpoints(central.engine, membershipId)).toBe(TOKENS('old'));
    expect(await endpoints(b.engine, membershipId)).toBe(NONE);
    // Quiet: the scrub of the store's copies is no change of its own to push.
    expect(await storeLog()).toEqual(logBefore);
    expect(JSON.stringify(await readPendingEvents(b.engine, 100))).not.toContain('token-');
    await b.client.syncOnce();
    const newcomer = await central.engine.db.selectFrom('users').select('id').where('email', '=', 'ed@tokens.test').executeTakeFirstOrThrow();
    expect(await central.engine.db.selectFrom('user_vendors').select('push_endpoints').where('user_id', '=', newcomer.id).execute()).toEqual([{ push_endpoints: NONE }]);
  });
});
