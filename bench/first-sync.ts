// A store's first sync from a big central (issues 11 and 13): central (its own process, SQLite)
// holds BENCH_FIRST_SYNC_CUSTOMERS customers (default 1,000,000), each a member with a points
// balance; a new store node pairs over HTTP and takes the snapshot. Measured from the store node's
// start: until a check-in of the last customer works (asked of central while the snapshot has not
// reached them), the waits of counters checking in customers before their turn, until the
// customers and balances are in, and until the whole first sync is done, beside the goals (15 s,
// 60 s); then central's answer to the store's pulls (caught up, and a page from the log's start).
// Prints one JSON document;
// bench/run.ts includes it (`npx tsx bench/first-sync.ts` alone).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { getMeta } from '../src/core/storage/node-meta';
import { startStoreNode } from '../src/server/node/store-node';
import { pairStoreWithCentral } from '../src/server/sync/pair-store';
import { seededPoints } from '../test/support/seed-customers';
import { makeTempDir } from '../test/support/temp-dir';

interface CentralInfo {
  url: string;
  apiKey: string;
  code: string;
  customers: number;
  seedMs: number;
}

export async function firstSyncFigures(): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('first-sync-central.ts', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  const central = await new Promise<CentralInfo>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench/first-sync-central.ts exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as CentralInfo));
  });
  const dir = makeTempDir('punchcard-bench-first-sync-store-');
  try {
    await pairStoreWithCentral({ dataDir: dir.path, central: central.url, code: central.code, label: 'bench' });
    const started = performance.now();
    const store = await startStoreNode({ dataDir: dir.path, port: 0 });
    try {
      const last = `customer${central.customers - 1}@bench.example`;
      const checkIn = async (email: string) => {
        const asked = performance.now();
        const reply = await fetch(`${store.url}/onscreen?api_key=${central.apiKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ card_number: email }) });
        const body = await reply.text();
        if (reply.status !== 201 && reply.status !== 503 && reply.status !== 401) throw new Error(`check-in during the first sync answered ${reply.status}: ${body}`);
        return { ok: reply.status === 201, ms: performance.now() - asked };
      };
      let checkInMs: number | null = null;
      let readyMs: number | null = null;
      // While the snapshot runs, a counter checks in customers it has not received yet (from the
      // end of the list backwards): each is asked of central. Their waits are the counter's.
      const earlyWaits: number[] = [];
      let nextEarly = central.customers - 2;
      const samples: Array<{ s: number; percent: number; rows: number; eta_s: number | null }> = [];
      let nextSample = 0;
      for (;;) {
        const status = (await store.sync!.status()) as { first_sync: { done: boolean; ready: boolean; progress: number; rows: number; eta_seconds: number | null }; last_error: string | null };
        const elapsed = performance.now() - started;
        if (elapsed >= nextSample) {
          samples.push({ s: Math.round(elapsed / 100) / 10, percent: status.first_sync.progress, rows: status.first_sync.rows, eta_s: status.first_sync.eta_seconds });
          nextSample += 2_000;
        }
        if (checkInMs === null) {
          // The last customer of the chain: the snapshot brings them last of all.
          if ((await checkIn(last)).ok) checkInMs = performance.now() - started;
        } else if (!status.first_sync.ready && earlyWaits.length < 200) {
          const early = await checkIn(`customer${nextEarly--}@bench.example`);
          if (early.ok) earlyWaits.push(early.ms);
        }
        if (status.first_sync.ready && readyMs === null) readyMs = elapsed;
        if (status.first_sync.done) break;
        if (elapsed > 600_000) throw new Error(`first sync not done after 10 minutes (${JSON.stringify(status)})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const doneMs = performance.now() - started;
      const db = store.engine.db;
      const customers = Number((await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const sums = await db
        .selectFrom('ledger_accounts')
        .select((eb) => [eb.fn.sum<number>('balance').as('balances'), eb.fn.countAll<number>().as('accounts')])
        .executeTakeFirstOrThrow();
      const entries = Number((await db.selectFrom('ledger_entries').select((eb) => eb.fn.sum<number>('amount').as('n')).executeTakeFirstOrThrow()).n);
      let expected = 0;
      for (let i = 0; i < central.customers; i++) expected += seededPoints(i);
      if (customers !== central.customers || Number(sums.balances) !== expected || entries !== expected) {
        throw new Error(`store has ${customers} customers, balances ${sums.balances}, entries ${entries}; expected ${central.customers} and ${expected}`);
      }
      const rows = samples.length > 0 ? (((await store.sync!.status()) as { first_sync: { rows: number } }).first_sync.rows) : 0;
      // Central answering this store's pulls over HTTP at 1M customers: caught up (what every
      // store asks on every poke), and a page of 1,000 from the log's start (customers and
      // memberships: a store far behind).
      const { credential } = JSON.parse(readFileSync(join(dir.path, 'central.json'), 'utf8')) as { credential: string };
      const cursor = Number(await getMeta(store.engine.db, 'sync_cursor'));
      const pullMs = async (after: number, limit: number) => {
        const asked = performance.now();
        const reply = await fetch(`${central.url}/sync/pull?after=${after}&limit=${limit}`, { headers: { authorization: `Bearer ${credential}` } });
        if (reply.status !== 200) throw new Error(`pull answered ${reply.status}: ${await reply.text()}`);
        await reply.arrayBuffer();
        return performance.now() - asked;
      };
      const caughtUp: number[] = [];
      for (let i = 0; i < 50; i++) caughtUp.push(await pullMs(cursor, 500));
      const fromStart: number[] = [];
      for (let i = 0; i < 5; i++) fromStart.push(await pullMs(0, 1_000));
      return {
        settings: { customers: central.customers, central: 'sqlite, own process, HTTP on loopback', rows_per_customer: 'user, membership, ledger entry (+ its account)', central_seed_s: Math.round(central.seedMs / 100) / 10 },
        time_to_check_in_s: Math.round((checkInMs ?? 0) / 100) / 10,
        goal_check_in_s: 15,
        check_ins_before_their_turn: { count: earlyWaits.length, ...percentiles(earlyWaits) },
        customers_and_balances_in_s: Math.round((readyMs ?? 0) / 100) / 10,
        time_to_whole_snapshot_s: Math.round(doneMs / 100) / 10,
        goal_snapshot_s: 60,
        rows,
        rows_per_s: Math.round(rows / (doneMs / 1000)),
        pull_caught_up: { count: caughtUp.length, ...percentiles(caughtUp) },
        pull_page_of_1000_from_the_start: { count: fromStart.length, ...percentiles(fromStart) },
        progress_samples: samples,
      };
    } finally {
      await store.close();
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    dir.remove();
  }
}

function percentiles(values: number[]): { p50_ms: number | null; p95_ms: number | null } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? null : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10);
  return { p50_ms: at(0.5), p95_ms: at(0.95) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await firstSyncFigures(), null, 2));
}
