// Sync figures (docs/sync.md), printed as one JSON document by `npm run bench` (or alone:
// `npx tsx bench/sync.ts`):
// - events/s central applies from a store's offline order events (BENCH_SYNC_EVENTS, default
//   100,000), on SQLite and on PostgreSQL (PG_URL), each beside the raw commit rate of the same
//   database measured in the same run (pages of the same size, one transaction each); the median of
//   BENCH_SYNC_RUNS runs (default 3), each run's rate listed;
// - the same for a store's usual flow, check-in then the sale that closes it (two events per sale;
//   BENCH_SYNC_FLOW_EVENTS, default 20,000), on SQLite; and that flow again with a webhook endpoint
//   that wants check-in events, so that every check-in takes central's per-event path;
// - an app check-in made at central until the store node publishes it to its queue, p50/p95, over
//   real HTTP (central and a paired store node in this process).
// BENCH_SYNC_ONLY=postgres runs only the apply on PostgreSQL (to compare changes to that path).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { type Engine, startEngine } from '../src/core/engine';
import { authenticateCustomer } from '../src/core/customers/authenticate-customer';
import { registerCustomer } from '../src/core/customers/register-customer';
import { type Database, openDatabaseUrl } from '../src/core/storage/database';
import { installChangeCapture } from '../src/core/sync/capture/install-capture';
import { acceptPushedEvents } from '../src/core/sync/central/apply-push';
import { authenticateNode, issuePairingCode } from '../src/core/sync/central/pairing';
import { readPendingEvents, recordVerdicts } from '../src/core/sync/outbox/pending-events';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { createWebhookEndpoint } from '../src/core/webhooks/endpoints';
import { startStoreNode } from '../src/server/node/store-node';
import { pairStoreWithCentral } from '../src/server/sync/pair-store';
import { PUSH_PAGE } from '../src/core/sync/store/sync-client';
import { createServerDatabase } from '../test/support/postgres';
import { type Flow, storeWithOfflineOrders } from './offline-outbox';

const EVENTS = Number(process.env.BENCH_SYNC_EVENTS ?? 100_000);
const FLOW_EVENTS = Number(process.env.BENCH_SYNC_FLOW_EVENTS ?? 20_000);
const ONLY_POSTGRES = process.env.BENCH_SYNC_ONLY === 'postgres';
/** Apply runs of the orders per database, the median reported. */
const RUNS = Number(process.env.BENCH_SYNC_RUNS ?? 3);

// Pages of the size a store pushes.
const PAGE = Number(process.env.BENCH_SYNC_PAGE ?? PUSH_PAGE);
// Central's SQLite file as `punchcard central` opens it (store-node.ts).
const AS_CENTRAL = { backgroundCheckpoints: true };
const sqliteCentral = (runDir: string) => openDatabaseUrl(join(runDir, 'central.db'), AS_CENTRAL);
const dir = mkdtempSync(join(tmpdir(), 'pc-bench-sync-'));

async function pgDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const server = process.env.PG_URL;
  return server ? createServerDatabase(server, 'punchcard_bench') : null;
}

/**
 * One apply run, its files (the store's outbox, an SQLite central) in a folder of their own that is
 * removed after it: the next run must not share the disk with this one's unwritten pages.
 */
async function applyRate(kind: 'sqlite' | 'postgres', open: (runDir: string) => Database, flow: Flow = 'orders', options: { checkInWebhook?: boolean } = {}): Promise<Record<string, unknown>> {
  const runDir = mkdtempSync(join(dir, 'apply-'));
  const central = await startEngine({ database: open(runDir), nodeKey: randomBytes(32), role: 'central' });
  let store: Engine | null = null;
  try {
    await installChangeCapture(central.db, central.dialect, 'central');
    const vendor = await setUpVendor(central, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'A', address1: '1 Main', city: 'X' } });
    // An integration that wants check-ins one by one (nothing listens: deliveries only queue up).
    if (options.checkInWebhook) await createWebhookEndpoint(central, { vendorId: vendor.vendorId }, { url: 'http://127.0.0.1:9/hooks', events: ['check_in.opened', 'check_in.closed'] }, { allowPrivate: true });
    const generated = Date.now();
    const made = await storeWithOfflineOrders(central, vendor, flow, flow === 'orders' ? EVENTS : FLOW_EVENTS, runDir);
    store = made.store;
    const generationMs = Date.now() - generated;
    const node = await authenticateNode(central, made.credential);
    let applied = 0;
    let applyMs = 0;
    for (;;) {
      const events = await readPendingEvents(store, PAGE);
      if (events.length === 0) break;
      const started = performance.now();
      const reply = await acceptPushedEvents(central, node, events);
      applyMs += performance.now() - started;
      applied += reply.results.filter((r) => r.verdict === 'applied').length;
      const outbox = store;
      await outbox.db.transaction().execute((trx) => recordVerdicts(trx, outbox, reply.results));
    }
    // Raw commits of the same database: pages of PAGE small rows, one transaction each.
    await sql`create table bench_raw (id bigint primary key, payload text not null)`.execute(central.db);
    const rawStarted = performance.now();
    const rawPages = 40;
    for (let p = 0; p < rawPages; p += 1) {
      await central.db.transaction().execute(async (trx) => {
        for (let i = 0; i < PAGE; i += 1) await sql`insert into bench_raw (id, payload) values (${p * PAGE + i}, ${'x'.repeat(200)})`.execute(trx);
      });
    }
    const rawMs = performance.now() - rawStarted;
    return {
      database: kind,
      flow,
      ...(options.checkInWebhook ? { check_in_webhook: true } : {}),
      events: applied,
      events_per_s: Math.round((applied / applyMs) * 1000),
      ...(flow === 'orders' ? { goal_events_per_s: kind === 'sqlite' ? 20_000 : 10_000 } : {}),
      raw_commits_per_s: Math.round((rawPages / rawMs) * 1000),
      raw_rows_per_s: Math.round(((rawPages * PAGE) / rawMs) * 1000),
      page_size: PAGE,
      outbox_generation_s: Math.round(generationMs / 1000),
    };
  } finally {
    await store?.close();
    await central.close();
    rmSync(runDir, { recursive: true, force: true });
  }
}

/** App check-in at central → the paired store's queue hears it: latency over real HTTP. */
async function appCheckInToQueue(): Promise<Record<string, unknown>> {
  const central = await startStoreNode({ dataDir: join(dir, 'central'), role: 'central', port: 0 });
  const vendor = await setUpVendor(central.engine, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'A', address1: '1 Main', city: 'X' } });
  const { code } = await issuePairingCode(central.engine, vendor.vendorId, vendor.storeId);
  await pairStoreWithCentral({ dataDir: join(dir, 'store'), central: central.url, code });
  const store = await startStoreNode({ dataDir: join(dir, 'store'), port: 0 });
  const post = async (url: string, body: unknown) => {
    const reply = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await reply.json()) as Record<string, unknown>;
  };
  const samples: number[] = [];
  for (let i = 0; i < 40; i += 1) {
    // The customer and their app session are made in-process (the per-address rate limits of
    // register and login are not what is measured); the check-in goes over HTTP.
    const email = `app${i}@bench.test`;
    await registerCustomer(central.engine, { vendorId: vendor.vendorId, firstName: 'App', lastName: 'User', email, password: 'correct horse 1', terms: true });
    const login = await authenticateCustomer(central.engine, { email, password: 'correct horse 1', vendorId: vendor.vendorId, client: 'bench' });
    const heard = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`app check-in ${i} never reached the store's queue`)), 30_000);
      const stop = store.engine.events.subscribe(vendor.storeId, (event) => {
        if (event.type === 'session.opened' && event.by === 'app') {
          clearTimeout(timer);
          stop();
          resolve(performance.now());
        }
      });
    });
    const started = performance.now();
    const checkIn = await post(`${central.url}/vendor/store/check-in?session_key=${encodeURIComponent(login.sessionKey)}`, { store: vendor.storeId });
    if (!checkIn.pos_session) throw new Error(`app check-in refused: ${JSON.stringify(checkIn)}`);
    samples.push((await heard) - started);
  }
  await store.close();
  await central.close();
  samples.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!);
  return { samples: samples.length, p50_ms: pct(0.5), p95_ms: pct(0.95), goal_p95_ms: 1000 };
}

/**
 * The orders apply on one database, run RUNS times (a fresh central and outbox each; the machine
 * swings ±10 % from one run to the next): the run of median rate, with every run's rate.
 */
async function medianApplyRate(kind: 'sqlite' | 'postgres'): Promise<Record<string, unknown>> {
  const runs: Record<string, unknown>[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const postgres = kind === 'postgres' ? await pgDatabase() : null;
    runs.push(await applyRate(kind, postgres ? () => openDatabaseUrl(postgres.url) : sqliteCentral).finally(() => postgres?.drop()));
  }
  const byRate = [...runs].sort((a, b) => Number(a['events_per_s']) - Number(b['events_per_s']));
  return { ...byRate[Math.floor(byRate.length / 2)], median_of_runs: RUNS, events_per_s_of_each_run: runs.map((r) => r['events_per_s']) };
}

try {
  const postgres = Boolean(process.env.PG_URL);
  if (ONLY_POSTGRES && !postgres) throw new Error('BENCH_SYNC_ONLY=postgres needs PG_URL');
  const figures = ONLY_POSTGRES ? { apply_at_central: [await medianApplyRate('postgres')] } : {
    apply_at_central: [await medianApplyRate('sqlite'), ...(postgres ? [await medianApplyRate('postgres')] : [])],
    apply_check_in_flow_at_central: await applyRate('sqlite', sqliteCentral, 'check-ins'),
    apply_check_in_flow_with_check_in_webhook_at_central: await applyRate('sqlite', sqliteCentral, 'check-ins', { checkInWebhook: true }),
    app_check_in_to_store_queue: await appCheckInToQueue(),
  };
  console.log(JSON.stringify(figures, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
