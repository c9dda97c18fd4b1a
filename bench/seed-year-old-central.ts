// A year-old chain central on SQLite, for the back office at scale (bench/backoffice-year.ts):
// one program, several stores, each paired with a store node, BENCH_CUSTOMERS customers (default
// 1,000,000) and a year of history spread over the stores — orders with their check-ins,
// transactions and ledger entries, reloads, staff adjustments with their audit records, webhook
// events and deliveries, the sync change log and the exceptions offline selling left.
// As bench/admin-search.ts: one real customer's activity is made through the use cases, then its
// rows are copied in SQL. No ANALYZE: a node never runs it.
import { sql } from 'kysely';
import { authenticateApiKey } from '../src/core/credentials/authenticate';
import { createCard } from '../src/core/cards/create-card';
import { type Engine, transact } from '../src/core/engine';
import { checkIn } from '../src/core/onscreen/check-in';
import { registerInStore } from '../src/core/onscreen/register-in-store';
import { placeOrder } from '../src/core/orders/place-order';
import { creditQuickPay } from '../src/core/payments/quick-pay/credit-quick-pay';
import type { DB } from '../src/core/storage/schema';
import { issuePairingCode, pairNode } from '../src/core/sync/central/pairing';
import { setUpVendor, type VendorCredentials } from '../src/core/tenancy/set-up-vendor';
import { createWebhookEndpoint } from '../src/core/webhooks/endpoints';

export interface YearSizes {
  customers: number;
  orders: number;
  stores: number;
  audit: number;
  deliveries: number;
  changes: number;
  exceptions: number;
}

export const yearSizes = (): YearSizes => ({
  customers: Number(process.env.BENCH_CUSTOMERS ?? 1_000_000),
  orders: Number(process.env.BENCH_ORDERS ?? 2_000_000),
  stores: Number(process.env.BENCH_STORES ?? 8),
  audit: Number(process.env.BENCH_AUDIT ?? 200_000),
  deliveries: Number(process.env.BENCH_DELIVERIES ?? 500_000),
  changes: Number(process.env.BENCH_CHANGES ?? 1_000_000),
  exceptions: Number(process.env.BENCH_EXCEPTIONS ?? 5_000),
});

export const YEAR_MS = 365 * 24 * 3600_000;
/** Id bases far from the node's own ids, under 2^53. */
const B = 1_000_000_000_000;
/** One customer in this many orders is the regular (customer 1): a page with a long history. */
const REGULAR_EVERY = 1_000;

export interface YearOldCentral {
  vendor: VendorCredentials;
  storeIds: number[];
  /** The customer with the longest history (one order in REGULAR_EVERY). */
  regularId: number;
  endpointId: string;
  customerIdOf: (i: number) => number;
}

/** Copies the template rows of `table` (`where`, over alias t) `count` times, with `overrides` (SQL over i = 1…count and t). */
async function copyRows(db: Engine['db'], table: keyof DB, where: string, count: number, overrides: Record<string, string>, omit: string[] = []): Promise<void> {
  if (count <= 0) return;
  const columns = (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows.map((r) => r.name).filter((c) => !omit.includes(c));
  const select = columns.map((c) => overrides[c] ?? `t.${c}`).join(', ');
  await sql.raw(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count}) insert into ${table} (${columns.join(', ')}) select ${select} from n, ${table} t where ${where}`).execute(db);
}

export async function seedYearOldCentral(engine: Engine, sizes: YearSizes, log: (step: string) => void = () => {}): Promise<YearOldCentral> {
  const db = engine.db;
  const now = engine.clock.now();
  const vendor = await setUpVendor(engine, { name: 'Year Chain', currency: 'USD', country: 'US', store: { name: 'Store 0', address1: '1 Main', city: 'Springfield' } });
  const scope = await authenticateApiKey(engine, vendor.apiKey);
  // The other stores: copies of the first.
  await copyRows(db, 'stores', `t.id = ${vendor.storeId}`, sizes.stores - 1, { id: `${9 * B} + i`, name: `'Store ' || i` });
  const storeIds = [vendor.storeId, ...Array.from({ length: sizes.stores - 1 }, (_, k) => 9 * B + k + 1)];
  const storeOf = (i: string) => `(case (${i}) % ${sizes.stores} when 0 then ${vendor.storeId} else ${9 * B} + (${i}) % ${sizes.stores} end)`;
  for (const [k, storeId] of storeIds.entries()) {
    const { code } = await issuePairingCode(engine, vendor.vendorId, storeId);
    await pairNode(engine, code, `Till ${k}`);
  }
  const { endpoint } = await createWebhookEndpoint(engine, { vendorId: vendor.vendorId }, { url: 'http://127.0.0.1:9/hook', events: ['order.placed'] }, { allowPrivate: true });

  // The template customer's activity, through the use cases.
  await createCard(engine, { vendorId: vendor.vendorId }, { number: 'TEMPLATE0' });
  await registerInStore(engine, scope, { email: 'template@bench.test', phone: { number: '4155550000', code: '1' }, firstName: 'Tem', lastName: 'Plate', cardNumber: 'TEMPLATE0' });
  const template = Number((await db.selectFrom('users').select('id').where('email_key', '=', 'template@bench.test').executeTakeFirstOrThrow()).id);
  await transact(engine, (trx) => creditQuickPay(trx, engine, { vendorId: vendor.vendorId, userId: template, amountMinor: 5000, kind: 'reload', referenceType: 'bench', referenceId: 'reload', receipts: [] }));
  await checkIn(engine, scope, { identification: 'template@bench.test' });
  await placeOrder(engine, scope, { identification: 'template@bench.test', receiptNumber: 'TEMPLATE-1', subtotal: 12.5, quickPay: 4 });
  const order = await db.selectFrom('orders').select(['id', 'session_id']).where('user_id', '=', template).executeTakeFirstOrThrow();
  const sessionId = Number(order.session_id ?? (await db.selectFrom('pos_sessions').select('id').where('user_id', '=', template).executeTakeFirstOrThrow()).id);
  log('template made');

  const N = sizes.customers;
  const K = sizes.orders;
  const U = B;
  const customerIdOf = (i: number) => U + i;
  await copyRows(db, 'users', `t.id = ${template}`, N, {
    id: `${U} + i`,
    email: `'c' || i || '@bench.test'`,
    email_key: `'c' || i || '@bench.test'`,
    phone: `'+1415' || (2000000 + i)`,
    first_name: `'Name' || (i % 997)`,
    last_name: `'Last' || i`,
    created_at: `${now} - ${YEAR_MS} + i * ${Math.floor(YEAR_MS / N)}`,
  });
  await copyRows(db, 'user_vendors', `t.user_id = ${template}`, N, { id: `${2 * U} + i`, user_id: `${U} + i`, referral_code: `'ref' || i` });
  await copyRows(db, 'cards', `t.number = 'TEMPLATE0'`, N, { id: `${3 * U} + i`, public_id: `'card_bench' || i`, number: `'BC' || printf('%09d', i)`, number_key: `'BC' || printf('%09d', i)` });
  await copyRows(db, 'user_cards', `t.user_id = ${template}`, N, { id: `${4 * U} + i`, card_id: `${3 * U} + i`, user_id: `${U} + i` });
  log('customers copied');

  // Each customer's accounts: account base 5B + k for the template's k-th account.
  const accounts = (await db.selectFrom('ledger_accounts').select(['id']).where('holder_id', '=', template).orderBy('id').execute()).map((a) => Number(a.id));
  const accountBase = new Map(accounts.map((id, k) => [id, (20 + k) * U]));
  for (const [id, base] of accountBase) await copyRows(db, 'ledger_accounts', `t.id = ${id}`, N, { id: `${base} + i`, holder_id: `${U} + i`, balance: `(i * 37) % 5000` });
  log('accounts copied');

  // Order i: at now − a year + i/K of it, at store i mod S, by customer `user(i)`.
  const user = `(case when i % ${REGULAR_EVERY} = 0 then 1 else 1 + (i * 7919) % ${N} end)`;
  const at = `(${now} - ${YEAR_MS} + i * ${Math.floor(YEAR_MS / K)})`;
  const O = 10 * U;
  const P = 11 * U;
  const T = 12 * U;
  await copyRows(db, 'pos_sessions', `t.id = ${sessionId}`, K, { id: `${P} + i`, hash: `'bench' || i`, user_id: `${U} + ${user}`, store_id: storeOf('i'), status: `'closed'`, created_at: at, updated_at: at, closed_at: at });
  await copyRows(db, 'orders', `t.id = ${order.id}`, K, { id: `${O} + i`, user_id: `${U} + ${user}`, store_id: storeOf('i'), session_id: `${P} + i`, receipt_number: `'R' || i`, ordered_at: at, created_at: at });
  await copyRows(db, 'transactions', `t.order_id = ${order.id}`, K, { id: `${T} + i`, user_id: `${U} + ${user}`, store_id: storeOf('i'), order_id: `${O} + i`, occurred_at: at, created_at: at });
  log('orders copied');

  // The ledger: each entry the order made, per order; one reload in 10 orders; adjustments as many as audit records.
  const entries = await db.selectFrom('ledger_entries').selectAll().where('account_id', 'in', accounts).orderBy('id').execute();
  for (const [k, e] of entries.entries()) {
    const base = (30 + k) * U;
    const account = `${accountBase.get(Number(e.account_id))} + ${user}`;
    if (e.reference_type === 'order') await copyRows(db, 'ledger_entries', `t.id = ${e.id}`, K, { id: `${base} + i`, account_id: account, reference_id: `cast(${O} + i as text)`, created_at: at });
    else await copyRows(db, 'ledger_entries', `t.id = ${e.id}`, Math.floor(K / 10), { id: `${base} + i`, account_id: account, created_at: `(${now} - ${YEAR_MS} + i * ${Math.floor((YEAR_MS * 10) / K)})` });
  }
  log('ledger copied');

  // Audit: staff adjustments (an adjustment's record, made here as the use case writes it).
  await db
    .insertInto('audit_log')
    .values({ id: 50 * U, vendor_id: vendor.vendorId, staff_id: null, actor: 'owner@bench.test', action: 'customer.adjust', object_type: 'customer', object_id: String(template), before: JSON.stringify({ balance: 100 }), after: JSON.stringify({ balance: 150, reason: 'goodwill' }), created_at: now - YEAR_MS })
    .execute();
  // One record in 50 is a staff change, so a filter by object type reads a rare kind too.
  await copyRows(db, 'audit_log', `t.id = ${50 * U}`, sizes.audit, {
    id: `${50 * U} + i`,
    object_type: `case when i % 50 = 0 then 'staff' else 'customer' end`,
    object_id: `cast(${U} + 1 + (i * 7919) % ${N} as text)`,
    created_at: `${now} - ${YEAR_MS} + i * ${Math.floor(YEAR_MS / Math.max(1, sizes.audit))}`,
  });
  log('audit copied');

  // Webhooks: the template order's event and delivery, copied.
  const event = await db.selectFrom('webhook_events').select('id').where('vendor_id', '=', vendor.vendorId).executeTakeFirst();
  if (event) {
    const D = sizes.deliveries;
    const when = `(${now} - ${YEAR_MS} + i * ${Math.floor(YEAR_MS / Math.max(1, D))})`;
    await copyRows(db, 'webhook_events', `t.id = '${event.id}'`, D, { id: `'evt_bench' || i`, created_at: when, recorded_at: when });
    await copyRows(db, 'webhook_deliveries', `t.event_id = '${event.id}'`, D, { id: `${51 * U} + i`, event_id: `'evt_bench' || i`, status: `'succeeded'`, attempts: '1', created_at: when, next_attempt_at: when, last_attempt_at: when, finished_at: when, last_status_code: '200' });
  }
  log('webhooks copied');

  // The change log: the template's rows, again and again (vendor-scoped rows of the program).
  const firstChange = await db.selectFrom('sync_changes').select(sql<number>`min(seq)`.as('seq')).where('vendor_id', '=', vendor.vendorId).executeTakeFirst();
  if (firstChange?.seq !== undefined && firstChange.seq !== null) await copyRows(db, 'sync_changes', `t.seq = ${firstChange.seq}`, sizes.changes, {}, ['seq']);
  // Half the tills are caught up, half far behind (one never synced).
  const maxSeq = Number((await db.selectFrom('sync_changes').select(sql<number>`max(seq)`.as('seq')).executeTakeFirstOrThrow()).seq);
  const nodes = await db.selectFrom('sync_nodes').select('id').where('vendor_id', '=', vendor.vendorId).orderBy('id').execute();
  for (const [k, node] of nodes.entries()) {
    const cursor = k === 0 ? 0 : k % 2 === 0 ? maxSeq : Math.floor(maxSeq / 2);
    await db.updateTable('sync_nodes').set({ cursor, last_seq: k === 0 ? 0 : 100, last_seen_at: k === 0 ? null : now - 60_000 }).where('id', '=', node.id).execute();
  }
  log('change log copied');

  // Exceptions offline selling left over the year: a few open, the rest resolved.
  const nodeOf = (i: string) => `(case (${i}) % ${nodes.length} ${nodes.map((node, k) => `when ${k} then ${node.id}`).join(' ')} end)`;
  await sql
    .raw(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sizes.exceptions})
       insert into sync_exceptions (vendor_id, store_id, node_id, kind, subject, message, message_data, created_at, resolved_at)
       select ${vendor.vendorId}, ${storeOf('i')}, ${nodeOf('i')}, 'receipt_reused', 'order ' || (${O} + i * 37), 'A receipt number was used twice.', null,
              ${now} - ${YEAR_MS} + i * ${Math.floor(YEAR_MS / Math.max(1, sizes.exceptions))},
              case when i > ${sizes.exceptions} - 20 then null else ${now} - ${YEAR_MS} + i * ${Math.floor(YEAR_MS / Math.max(1, sizes.exceptions))} + 3600000 end
       from n`,
    )
    .execute(db);
  log('exceptions made');
  return { vendor, storeIds, regularId: U + 1, endpointId: endpoint.id, customerIdOf };
}
