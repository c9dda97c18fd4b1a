// A store's first sync from a big central (issues 11 and 13): central (its own process, SQLite)
// holds BENCH_FIRST_SYNC_CUSTOMERS customers (default 1,000,000), each a member with a points
// balance; a new store node pairs over HTTP and takes the snapshot. Measured from the store node's
// start: until a check-in of the last customer works (the customers and balances are in), and
// until the whole first sync is done, beside the goals (15 s, 60 s). Prints one JSON document;
// bench/run.ts includes it (`npx tsx bench/first-sync.ts` alone).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startStoreNode } from '../src/server/node/store-node';
import { pairStoreWithCentral } from '../src/server/sync/pair-store';
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
      let checkInMs: number | null = null;
      let readyMs: number | null = null;
      const samples: Array<{ s: number; percent: number; rows: number; eta_s: number | null }> = [];
      let nextSample = 0;
      for (;;) {
        const status = (await store.sync!.status()) as { first_sync: { done: boolean; ready: boolean; progress: number; rows: number; eta_seconds: number | null }; last_error: string | null };
        const elapsed = performance.now() - started;
        if (elapsed >= nextSample) {
          samples.push({ s: Math.round(elapsed / 100) / 10, percent: status.first_sync.progress, rows: status.first_sync.rows, eta_s: status.first_sync.eta_seconds });
          nextSample += 2_000;
        }
        if (status.first_sync.ready && readyMs === null) {
          readyMs = elapsed;
          const reply = await fetch(`${store.url}/onscreen?api_key=${central.apiKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ card_number: last }) });
          if (reply.status !== 201) throw new Error(`check-in after the essentials answered ${reply.status}: ${await reply.text()}`);
          checkInMs = performance.now() - started;
        }
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
      for (let i = 0; i < central.customers; i++) expected += 10 + (i % 490);
      if (customers !== central.customers || Number(sums.balances) !== expected || entries !== expected) {
        throw new Error(`store has ${customers} customers, balances ${sums.balances}, entries ${entries}; expected ${central.customers} and ${expected}`);
      }
      const rows = samples.length > 0 ? (((await store.sync!.status()) as { first_sync: { rows: number } }).first_sync.rows) : 0;
      return {
        settings: { customers: central.customers, central: 'sqlite, own process, HTTP on loopback', rows_per_customer: 'user, membership, ledger entry (+ its account)', central_seed_s: Math.round(central.seedMs / 100) / 10 },
        time_to_check_in_s: Math.round((checkInMs ?? 0) / 100) / 10,
        goal_check_in_s: 15,
        customers_and_balances_in_s: Math.round((readyMs ?? 0) / 100) / 10,
        time_to_whole_snapshot_s: Math.round(doneMs / 100) / 10,
        goal_snapshot_s: 60,
        rows,
        rows_per_s: Math.round(rows / (doneMs / 1000)),
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await firstSyncFigures(), null, 2));
}
