import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { findBalanceMismatches, openAccount, postEntry } from '../../src/core/ledger/ledger';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { checkIn } from '../../src/core/onscreen/check-in';
import { closeSession } from '../../src/core/onscreen/close-session';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { openPostgres, openSqlite } from '../../src/core/storage/database';
import { acceptPushedEvents, type PairedNode } from '../../src/core/sync/central/apply-push';
import { isPlainSale, learnPage, rememberEvent, startNewRun } from '../../src/core/sync/central/apply-batch';
import type { PushedEvent } from '../../src/core/sync/protocol';
import { readPendingEvents } from '../../src/core/sync/outbox/pending-events';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { ManualClock } from '../support/clock';
import { createServerDatabase } from '../support/postgres';
import { type CentralHandle, pairStoreBehindSwitch, startCentral, type StoreHandle } from './support/chain';

// Central applies runs of plain sales with multi-row statements and everything else event by event
// (src/core/sync/central/apply-batch.ts). The two paths must leave central in the same state: the
// same events are applied to two copies of one central, once as a page and once one by one. With
// PG_URL set, the same again with central on PostgreSQL (its bulk writer and capture differ).

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

type Kind = 'sqlite' | 'postgres';

interface OfflineStore {
  /** PostgreSQL: the server database central runs on (copied as a template). */
  server?: { url: string; name: string };
  clock: ManualClock;
  central: CentralHandle;
  store: StoreHandle;
  node: PairedNode;
}

/**
 * Central and one store that knows three customers, then sells offline: earns, spends, closes.
 * With `checkIns`, the sales follow check-ins (opened, then closed by the sale or by the cashier)
 * and no integration wants check-in events, so runs take them; one customer is checked in at
 * central meanwhile, so the store's check-in closes that one as moved.
 */
async function storeThatSoldOffline(kind: Kind, options: { checkIns?: boolean } = {}): Promise<OfflineStore> {
  const clock = new ManualClock();
  let server: OfflineStore['server'];
  if (kind === 'postgres') {
    const scratch = await createServerDatabase(process.env.PG_URL!, 'punchcard_test');
    open.push({ close: scratch.drop });
    server = { url: scratch.url, name: new URL(scratch.url).pathname.slice(1) };
  }
  const central = await startCentral(clock, server ? openPostgres(server.url, 4) : undefined);
  open.push(central);
  const { vendorId, loyaltyCurrencyId, quickPayCurrencyId } = central.vendor;
  const points = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', loyaltyCurrencyId).executeTakeFirstOrThrow();
  const reward = await createSpendingRule(central.engine, { vendorId }, { name: 'Coffee', cost: 8, currency: points.public_id });
  // Integrations want every effect, so the bulk path raises them with each entry's own balance.
  const events = ['customer.registered', ...(options.checkIns ? [] : ['check_in.opened', 'check_in.closed']), 'order.placed', 'balance.updated'];
  await createWebhookEndpoint(central.engine, { vendorId }, { url: 'https://hooks.example.com/punchcard', events }, { allowPrivate: false });
  const store = await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
  open.push(store);
  const emails = ['ana@example.com', 'bo@example.com', 'cy@example.com'];
  for (const email of emails) {
    const { session } = await registerInStore(store.engine, await store.scope(), { email });
    // Closed, so that a check-in at central later is a check-in the store does not know.
    if (options.checkIns) await closeSession(store.engine, await store.scope(), session.hash);
  }
  for (let round = 0; round < 2; round += 1) await store.client.syncOnce();
  // Quick pay loaded at central reaches the store before it goes offline.
  const ana = await central.engine.db.selectFrom('users').select('id').where('email', '=', emails[0]!).executeTakeFirstOrThrow();
  await central.engine.db.transaction().execute(async (trx) => {
    const account = await openAccount(trx, central.engine, { vendorId, currencyId: quickPayCurrencyId, holderType: 'user', holderId: Number(ana.id) });
    await postEntry(trx, central.engine, account, { amount: 3_000, kind: 'reload' });
  });
  for (let round = 0; round < 2; round += 1) await store.client.syncOnce();

  store.link.down = true;
  if (options.checkIns) {
    const atCentral = await authenticateApiKey(central.engine, central.vendor.apiKey);
    await checkIn(central.engine, atCentral, { identification: emails[1]! });
    // Registered at central meanwhile: the store's offline registration of this email must merge.
    await registerInStore(central.engine, atCentral, { email: 'twice@example.com', phone: { number: '+12025550188' } });
    await registerInStore(store.engine, await store.scope(), { email: 'twice@example.com' });
  }
  let receipt = 0;
  for (let i = 0; i < 30; i += 1) {
    clock.advance(60_000);
    const identification = emails[i % emails.length]!;
    const scope = await store.scope();
    if (options.checkIns) {
      const { session } = await checkIn(store.engine, scope, { identification });
      if (i % 4 === 3) await closeSession(store.engine, scope, session.hash);
      else await placeOrder(store.engine, scope, { sessionHash: session.hash, receiptNumber: `R${(receipt += 1)}`, subtotal: 10 + i, ...(i % 15 === 0 ? { quickPay: 2 } : {}) });
    } else if (i % 7 === 6) await placeOrder(store.engine, scope, { identification, receiptNumber: `R${(receipt += 1)}`, subtotal: 3, redemptions: [reward.publicId] });
    else if (i % 5 === 0) await placeOrder(store.engine, scope, { identification: emails[0]!, receiptNumber: `R${(receipt += 1)}`, subtotal: 4, quickPay: 4 });
    else await placeOrder(store.engine, scope, { identification, receiptNumber: `R${(receipt += 1)}`, subtotal: 20 + i });
    // Now and then a new customer, and a check-in closed by the cashier.
    if (i % 9 === 4) {
      const { session } = await registerInStore(store.engine, scope, { email: `new${i}@example.com` });
      await closeSession(store.engine, scope, session.hash);
    }
  }
  const row = await central.engine.db.selectFrom('sync_nodes').select(['id', 'vendor_id', 'store_id']).where('id', '=', store.engine.nodeId).executeTakeFirstOrThrow();
  return { server, clock, central, store, node: { id: Number(row.id), vendorId: Number(row.vendor_id), storeId: Number(row.store_id) } };
}

/** Two independent copies of central's database as it stands, each with its own engine. */
async function twoCopiesOf(offline: OfflineStore): Promise<[Engine, Engine]> {
  const { central: handle, clock, server } = offline;
  const central = handle.engine;
  if (server) {
    // A template must have no sessions: central's pool is closed first (and its handle made a no-op).
    await handle.close();
    handle.close = async () => {};
    const copies: Engine[] = [];
    for (let i = 0; i < 2; i += 1) {
      const copy = await createServerDatabase(process.env.PG_URL!, 'punchcard_test');
      open.push({ close: copy.drop });
      const admin = new pg.Client({ connectionString: process.env.PG_URL });
      await admin.connect();
      try {
        // The copy's name and its drop come from createServerDatabase; its contents from the template.
        const name = new URL(copy.url).pathname.slice(1);
        await admin.query(`drop database ${name}`);
        // Closed sockets can linger a moment after the pool ends.
        for (let attempt = 0; ; attempt += 1) {
          try {
            await admin.query(`create database ${name} template ${server.name}`);
            break;
          } catch (error) {
            if (attempt >= 100) throw error;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      } finally {
        await admin.end();
      }
      const engine = await startEngine({ database: openPostgres(copy.url, 4), nodeKey: randomBytes(32), clock, role: 'central' });
      open.push(engine);
      copies.push(engine);
    }
    return [copies[0]!, copies[1]!];
  }
  const dir = mkdtempSync(join(tmpdir(), 'pc-bulk-'));
  try {
    const file = join(dir, 'central.db');
    await sql`vacuum into ${file}`.execute(central.db);
    const image = readFileSync(file);
    const copies: Engine[] = [];
    for (let i = 0; i < 2; i += 1) {
      const engine = await startEngine({ database: openSqlite(image), nodeKey: randomBytes(32), clock, role: 'central' });
      open.push(engine);
      copies.push(engine);
    }
    return [copies[0]!, copies[1]!];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Central's state in terms both paths must agree on (ids central mints itself are left out). */
async function stateOf(engine: Engine): Promise<Record<string, unknown>> {
  const db = engine.db;
  const rows = async (table: 'orders' | 'transactions' | 'pos_sessions' | 'users' | 'user_vendors') =>
    (await db.selectFrom(table).selectAll().orderBy('id').execute()) as unknown[];
  return {
    orders: await rows('orders'),
    transactions: await rows('transactions'),
    sessions: await rows('pos_sessions'),
    users: await rows('users'),
    memberships: await rows('user_vendors'),
    entries: await db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['e.id', 'e.amount', 'e.kind', 'e.reference_type', 'e.reference_id', 'e.created_at', 'e.expires_at', 'a.holder_type', 'a.holder_id', 'a.currency_id'])
      .orderBy('e.id')
      .execute(),
    balances: await db.selectFrom('ledger_accounts').select(['holder_type', 'holder_id', 'currency_id', 'balance']).orderBy('holder_type').orderBy('holder_id').orderBy('currency_id').execute(),
    verdicts: await db.selectFrom('sync_verdicts').select(['node_seq', 'verdict', 'code']).orderBy('node_seq').execute(),
    exceptions: (await db.selectFrom('sync_exceptions').select(['kind', 'subject']).execute()).map((e) => `${e.kind} ${e.subject}`).sort(),
    webhooks: (await db.selectFrom('webhook_events').select(['type', 'data', 'created_at']).execute()).map((e) => `${e.type} ${e.created_at} ${e.data}`).sort(),
    auto_reloads: await db.selectFrom('auto_reloads').select(['user_id', 'amount', 'order_id', 'status']).orderBy('user_id').execute(),
    // Every row written is logged; how many times does not matter (a check-in opened and closed in
    // one run is inserted closed, one entry; stores apply rows, not steps).
    log: [...new Set((await db.selectFrom('sync_changes').select(['tbl', 'row_id', 'op']).execute()).map((c) => `${c.tbl} ${c.row_id} ${c.op}`))].sort(),
    mismatches: await findBalanceMismatches(db),
  };
}

async function applyBothWays(offline: OfflineStore, events: PushedEvent[]): Promise<{ bulk: Engine; oneByOne: Engine }> {
  const [bulk, oneByOne] = await twoCopiesOf(offline);
  await acceptPushedEvents(bulk, offline.node, events);
  for (const event of events) await acceptPushedEvents(oneByOne, offline.node, [event], { oneByOne: true });
  return { bulk, oneByOne };
}

describe.each<Kind>(process.env.PG_URL ? ['sqlite', 'postgres'] : ['sqlite'])('central’s bulk path for a store’s plain sales (%s)', (kind) => {
  it('leaves central exactly as applying each event alone does', async () => {
    const offline = await storeThatSoldOffline(kind);
    const events = await readPendingEvents(offline.store.engine, 1_000);
    // Most of them are plain sales (the bulk path), some are not (a new customer, a check-in opened).
    const page = await learnPage(offline.central.engine.db, events, { vendorId: offline.node.vendorId, sessionsInBulk: false });
    const plain = events.filter((event) => isPlainSale(page, offline.node, event)).length;
    expect(plain).toBeGreaterThan(events.length / 2);
    expect(plain).toBeLessThan(events.length);

    const sent = structuredClone(events);
    const { bulk, oneByOne } = await applyBothWays(offline, events);
    // The bulk path writes an event's row as sent when it can, and a copy where central changes a
    // column (every ledger entry's account here): the events themselves stay as the store sent them.
    expect(events).toEqual(sent);
    const state = await stateOf(bulk);
    expect(state).toEqual(await stateOf(oneByOne));
    expect(state['verdicts']).toEqual([]);
    expect(state['mismatches']).toEqual([]);
    // The spends raised their effects with the balance each one left.
    expect((state['webhooks'] as string[]).filter((w) => w.startsWith('balance.updated')).length).toBeGreaterThan(10);
  });

  it('takes check-ins in runs (opened, then closed by the sale) with the same result, closing the customer’s other check-in as moved', async () => {
    const offline = await storeThatSoldOffline(kind, { checkIns: true });
    const events = await readPendingEvents(offline.store.engine, 1_000);
    // As central gathers runs: an event joins one when it is plain given the run so far.
    const page = await learnPage(offline.central.engine.db, events, { vendorId: offline.node.vendorId, sessionsInBulk: true });
    let plain = 0;
    let plainRegistrations = 0;
    for (const event of events) {
      const joins = isPlainSale(page, offline.node, event);
      if (joins) plain += 1;
      if (joins && event.changes.some((c) => c.tbl === 'users')) plainRegistrations += 1;
      else startNewRun(page);
      rememberEvent(page, event, joins);
    }
    expect(plain).toBeGreaterThan(events.length * 0.8);
    // Three new customers join runs; the one central already has does not.
    expect(plainRegistrations).toBe(3);

    const { bulk, oneByOne } = await applyBothWays(offline, events);
    const state = await stateOf(bulk);
    expect(state).toEqual(await stateOf(oneByOne));
    expect(state['verdicts']).toEqual([]);
    expect(state['mismatches']).toEqual([]);
    const sessions = state['sessions'] as Array<{ status: string; closed_reason: string | null }>;
    expect(sessions.filter((s) => s.closed_reason === 'moved').length).toBeGreaterThanOrEqual(1);
    // New customers went in with their runs; the one central already had merged, event by event.
    expect(state['exceptions']).toEqual([expect.stringMatching(/^customer_merged user /)]);
    const users = state['users'] as Array<{ email: string | null; status: string }>;
    expect(users.filter((u) => u.email?.startsWith('new')).length).toBeGreaterThan(1);
    // Open: only the check-in of the customer registered twice (closed at neither end).
    expect(sessions.filter((s) => s.status === 'active')).toHaveLength(1);
  });

  it('takes a run the database refuses event by event: only the bad events are rejected, nothing of the refused attempts stays', async () => {
    const offline = await storeThatSoldOffline(kind);
    const events = await readPendingEvents(offline.store.engine, 1_000);
    const page = await learnPage(offline.central.engine.db, events, { vendorId: offline.node.vendorId, sessionsInBulk: false });
    // Plain sales naming a customer central has never heard of: they look plain, the database refuses
    // them. Two, far apart: the push is refused in bulk, runs again, and is refused again further on.
    const plain = events.filter((event) => isPlainSale(page, offline.node, event));
    const victims = [plain[1]!, plain.at(-3)!];
    for (const victim of victims) for (const change of victim.changes) if (change.tbl === 'orders') change.data['user_id'] = offline.store.engine.nodeId * 2 ** 32 + 999_999;

    const { bulk, oneByOne } = await applyBothWays(offline, events);
    const state = await stateOf(bulk);
    expect(state).toEqual(await stateOf(oneByOne));
    const rejected = (state['verdicts'] as Array<{ node_seq: number; verdict: string; code: string | null }>).filter((v) => v.verdict === 'rejected');
    expect(rejected).toEqual(victims.map((victim) => ({ node_seq: victim.node_seq, verdict: 'rejected', code: 'apply_failed' })));
    expect((state['orders'] as unknown[]).length).toBe(events.filter((e) => e.changes.some((c) => c.tbl === 'orders')).length - victims.length);
    expect(state['mismatches']).toEqual([]);
  });
});

describe.skipIf(!process.env.PG_URL)('central’s apply meeting a failure of the moment (PostgreSQL at PG_URL)', () => {
  /** Makes central's next `times` inserts of orders fail with `code` (a trigger; a sequence counts, outside any transaction). */
  async function failNextOrderInserts(central: Engine, code: string, times: number): Promise<() => Promise<number>> {
    await sql`create sequence staged_failures`.execute(central.db);
    await sql
      .raw(
        `create function stage_failure() returns trigger language plpgsql as $$
         begin
           if nextval('staged_failures') <= ${times} then raise exception 'staged failure' using errcode = '${code}'; end if;
           return new;
         end $$`,
      )
      .execute(central.db);
    await sql`create trigger stage_failure before insert on orders for each row execute function stage_failure()`.execute(central.db);
    return async () => Number((await sql<{ last_value: string }>`select last_value from staged_failures`.execute(central.db)).rows[0]!.last_value);
  }

  async function appliedState(offline: OfflineStore) {
    const db = offline.central.engine.db;
    return {
      verdicts: await db.selectFrom('sync_verdicts').select(['node_seq', 'code']).execute(),
      exceptions: await db.selectFrom('sync_exceptions').select(['kind', 'subject', 'message']).execute(),
      orders: (await db.selectFrom('orders').select('id').where('store_id', '=', offline.node.storeId).execute()).length,
      mismatches: await findBalanceMismatches(db),
    };
  }

  it('a deadlock while applying a page runs the page again: every sale applied, none rejected', async () => {
    const offline = await storeThatSoldOffline('postgres');
    const events = await readPendingEvents(offline.store.engine, 1_000);
    const sold = events.filter((event) => event.changes.some((c) => c.tbl === 'orders')).length;
    // Twice: the page's bulk run, then its first event alone (where the old code gave up on it).
    const failures = await failNextOrderInserts(offline.central.engine, '40P01', 2);

    await acceptPushedEvents(offline.central.engine, offline.node, events);
    expect(await failures()).toBeGreaterThan(2);
    const state = await appliedState(offline);
    expect(state.verdicts).toEqual([]);
    expect(state.exceptions).toEqual([]);
    expect(state.orders).toBe(sold);
    expect(state.mismatches).toEqual([]);
  });

  it('a statement timeout fails the push without a verdict; the store’s next send applies it all', async () => {
    const offline = await storeThatSoldOffline('postgres');
    const events = await readPendingEvents(offline.store.engine, 1_000);
    const sold = events.filter((event) => event.changes.some((c) => c.tbl === 'orders')).length;
    await failNextOrderInserts(offline.central.engine, '57014', 1);

    await expect(acceptPushedEvents(offline.central.engine, offline.node, events)).rejects.toMatchObject({ code: '57014' });
    expect(await appliedState(offline)).toEqual({ verdicts: [], exceptions: [], orders: 0, mismatches: [] });

    await acceptPushedEvents(offline.central.engine, offline.node, events);
    const state = await appliedState(offline);
    expect(state.verdicts).toEqual([]);
    expect(state.orders).toBe(sold);
  });
});
