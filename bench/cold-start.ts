// Cold start and memory (issue 13, item 4): `punchcard store` and `punchcard central` started as users
// start them (node bin/punchcard.js, the built command line), timed from spawn to the first 200 of
// /health, with the process's resident memory then; on a tiny data folder and on one holding
// BENCH_CUSTOMERS customers (default 1M, seeded with bulk SQL), where the retrieve-customer load
// (GET /onscreen, 50 connections, pipelining 1) then runs and the memory is read again.
// Goals: ≤ 1 s to /health on the 1M folder, RSS ≤ 250 MB after the retrieve load.
//
//   npx tsx bench/cold-start.ts      prints one JSON document (bench/run.ts includes it)
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import BetterSqlite3 from 'better-sqlite3';
// @ts-expect-error plain JavaScript script without types
import { CACHE_FILE, ensureBuiltCli } from '../scripts/build-cli.js';
import { canPin } from './cores';
import { makeTempDir } from '../test/support/temp-dir';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'punchcard.js');
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const STARTS = 5;
// Under the retrieve load: the node on core 0, the load generator (this process) on core 1, as
// bench/run.ts does. Cold starts are not pinned: a start uses both cores (GC and libuv threads).

interface Started {
  child: ChildProcess;
  url: string;
  ms: number;
}

/** Resident and peak memory of a process in MB (Linux /proc; null elsewhere). */
function memoryOf(pid: number): { rss_mb: number; peak_rss_mb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { rss_mb: Math.round(kb('VmRSS') / 1024), peak_rss_mb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system) a process has used, in ms (Linux /proc, 10 ms ticks; null elsewhere): a
 * start's cost that other work on a busy machine does not inflate as it does the wall time.
 */
function cpuMsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** `punchcard <command> --data DIR`, timed from spawn to the first 200 of /health. */
async function coldStart(command: 'store' | 'central', dataDir: string, port: number, pin = false): Promise<Started> {
  const args = [BIN, command, '--data', dataDir, '--port', String(port), '--log-level', 'warn'];
  const started = performance.now();
  // Pinned to core 0, or given every core back (bench/run.ts pins itself, and children inherit it).
  const cores = pin ? '0' : `0-${cpus().length - 1}`;
  const stdio: ['ignore', 'ignore', 'pipe'] = ['ignore', 'ignore', 'pipe'];
  const child = canPin ? spawn('taskset', ['-c', cores, process.execPath, ...args], { stdio }) : spawn(process.execPath, args, { stdio });
  let errors = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`punchcard ${command} exited with ${child.exitCode}: ${errors}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { child, url, ms: Math.round(performance.now() - started) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** A port free now: the OS picks it, then it is released for the node. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** STARTS cold starts in a row: each start's ms and the memory once /health answered. */
async function coldStarts(command: 'store' | 'central', dataDir: string) {
  const runs: Array<{ ms: number; cpu_ms: number | null; rss_mb: number | null }> = [];
  for (let i = 0; i < STARTS; i++) {
    const node = await coldStart(command, dataDir, await freePort());
    runs.push({ ms: node.ms, cpu_ms: cpuMsOf(node.child.pid!), rss_mb: memoryOf(node.child.pid!)?.rss_mb ?? null });
    await stop(node.child);
  }
  return { median_ms: median(runs.map((r) => r.ms)), median_cpu_ms: median(runs.map((r) => r.cpu_ms ?? 0)), runs };
}

/** `punchcard init`: a vendor with a store; its ids and cashier key. */
export function init(dataDir: string): { vendorId: number; apiKey: string } {
  const out = execFileSync(process.execPath, [BIN, 'init', '--data', dataDir, '--vendor', 'Bench'], { encoding: 'utf8' });
  return { vendorId: Number(/vendor_id\s+(\d+)/.exec(out)![1]), apiKey: /api_key\s+(pcak_\S+)/.exec(out)![1]! };
}

/**
 * CUSTOMERS customers of the vendor in two INSERT … SELECT statements over a counter (no row-by-row
 * round trips). Ids come from a range of the node's sequence reserved here, as the engine would draw them.
 */
export function seedCustomers(dataDir: string, vendorId: number): number {
  const started = Date.now();
  const db = new BetterSqlite3(join(dataDir, 'punchcard.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const span = 2 ** 32;
  const nodeBase = Math.floor(vendorId / span) * span;
  const sequence = Number((db.prepare("select value from id_sequences where name = 'objects'").get() as { value: number }).value);
  const tier = (db.prepare('select id from tiers where vendor_id = ? order by threshold limit 1').get(vendorId) as { id: number } | undefined)?.id ?? null;
  const now = Date.now();
  const params = { count: CUSTOMERS, first: nodeBase + sequence + 1, vendor: vendorId, tier, now };
  const counter = 'with recursive n(i) as (select 0 union all select i + 1 from n where i < :count - 1)';
  db.transaction(() => {
    db.prepare("update id_sequences set value = ? where name = 'objects'").run(sequence + CUSTOMERS * 2 + 10);
    db.prepare(
      `${counter}
       insert into users (id, email, email_key, password_hash, first_name, last_name, phone, first_vendor_id, status, failed_logins, created_at, updated_at)
       select :first + 2 * i, 'customer' || i || '@bench.example', 'customer' || i || '@bench.example', null, 'Customer', cast(i as text),
              '+1202' || printf('%07d', 5000000 + i), :vendor, 'active', 0, :now, :now from n`,
    ).run(params);
    db.prepare(
      `${counter}
       insert into user_vendors (id, user_id, vendor_id, contact_consent, language, tier_id, tier_since, reload_amount, reload_threshold, billing_profile_id,
         flagged, referral_code, newsletters, push_endpoints, first_login_at, created_at, updated_at, removed_at)
       select :first + 1 + 2 * i, :first + 2 * i, :vendor, 0, null, :tier, :now, 0, 0, null, 0, 'r' || i, '{}', '{"gcm":[],"apns":[]}', null, :now, :now, null from n`,
    ).run(params);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return Date.now() - started;
}

/** The retrieve-customer load of issue 13 (GET /onscreen by session hash) against a running node. */
async function retrieveLoad(url: string, apiKey: string) {
  const hashes: string[] = [];
  for (let i = 0; i < 200; i++) {
    const reply = await fetch(`${url}/onscreen?api_key=${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card_number: `customer${randomInt(CUSTOMERS)}@bench.example` }),
    });
    if (!reply.ok) throw new Error(`check-in answered ${reply.status}: ${await reply.text()}`);
    hashes.push(((await reply.json()) as { pos_session: { hash: string } }).pos_session.hash);
  }
  let next = 0;
  const result = await autocannon({
    url,
    connections: 50,
    pipelining: 1,
    duration: DURATION,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/onscreen?api_key=${apiKey}&pos_session_hash=${hashes[next++ % hashes.length]}` }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`GET /onscreen: ${result.non2xx} non-2xx replies, ${result.errors} errors`);
  return { req_per_s: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99 };
}

/** Every figure of the cold-start section, as bench/run.ts prints it. */
export async function coldStartFigures() {
  const built = Date.now();
  await (ensureBuiltCli as () => Promise<string>)();
  const buildMs = Date.now() - built;

  const tiny = makeTempDir('punchcard-bench-cold-tiny-');
  const central = makeTempDir('punchcard-bench-cold-central-');
  const large = makeTempDir('punchcard-bench-cold-1m-');
  try {
    init(tiny.path);
    // The first start after a build runs on until it has written V8's code cache, as a server does.
    const priming = await coldStart('store', tiny.path, await freePort());
    const deadline = Date.now() + 15_000;
    while (!existsSync(CACHE_FILE as string) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    await stop(priming.child);
    const tinyStore = await coldStarts('store', tiny.path);
    const tinyCentral = await coldStarts('central', central.path);

    const { vendorId, apiKey } = init(large.path);
    const seedMs = seedCustomers(large.path, vendorId);
    // The seed's writes reach the disk before anything is timed (a start's first fsync would wait for them).
    spawnSync('sync');
    const largeStore = await coldStarts('store', large.path);
    // One more cold start, kept running for the retrieve load.
    const node = await coldStart('store', large.path, await freePort(), true);
    const atStart = memoryOf(node.child.pid!);
    if (canPin) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
    let retrieve;
    let afterLoad;
    try {
      retrieve = await retrieveLoad(node.url, apiKey);
      afterLoad = memoryOf(node.child.pid!);
    } finally {
      await stop(node.child);
    }
    return {
      first_start_after_build: { ms: priming.ms, code_cache_written: existsSync(CACHE_FILE as string) },
      settings: { starts_per_folder: STARTS, customers: CUSTOMERS, seed_ms: seedMs, cli_build_ms_if_stale: buildMs, pinned: canPin, retrieve_seconds: DURATION },
      goals: { to_health_ms: 1000, rss_after_retrieve_mb: 250 },
      store_tiny: tinyStore,
      central_tiny: tinyCentral,
      store_1m: { ...largeStore, rss_at_start_mb: atStart?.rss_mb ?? null },
      retrieve_1m: { ...retrieve, rss_after_mb: afterLoad?.rss_mb ?? null, peak_rss_mb: afterLoad?.peak_rss_mb ?? null },
    };
  } finally {
    tiny.remove();
    central.remove();
    large.remove();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await coldStartFigures(), null, 2));
}
