// npm run bench: throughput of the hot paths next to the raw limits of the same machine, measured
// in the same run (a bare Fastify route; raw durable SQLite commits), and the scan-to-panel latency
// of the cashier screen in Chromium (bench/scan-to-panel.ts). Prints one JSON document.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createInterface, type Interface } from 'node:readline';
import autocannon from 'autocannon';
import { centralScaleFigures } from './central-scale';
import { coldStartFigures } from './cold-start';
import { canPin, onEveryCore } from './cores';
import { requestLog } from './request-log';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;
const PIPELINING = 10;

// This process is the load generator: core 1.
if (canPin) spawnSync('taskset', ['-cp', '1', String(process.pid)]);

interface Target<T> {
  info: T;
  lines: Interface;
  child: ChildProcess;
}

async function startTarget<T>(script: string): Promise<Target<T>> {
  const command = canPin ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
  const child = spawn(command[0]!, [...command.slice(1), '--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const info = await new Promise<T>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
  });
  return { info, lines, child };
}

type Options = Omit<autocannon.Options, 'url' | 'duration' | 'connections' | 'pipelining'>;

/** CPU time (user + system) a process has used so far, in µs; null where /proc is not there. */
function cpuMicros(pid: number | undefined): number | null {
  try {
    // Fields after the command name: state is the first, utime the 12th, stime the 13th (clock ticks of 10 ms).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

interface Load {
  url: string;
  options?: Options;
  pipelining?: number;
  connections?: number;
}

interface Slice {
  requests: number;
  seconds: number;
  cpuMicros: number | null;
  p50: number;
  p99: number;
}

/** One timed run of `load`, with the server's CPU time over it (null where /proc is not there). */
async function slice(load: Load, seconds: number, serverPid: number | undefined): Promise<Slice> {
  const cpuBefore = cpuMicros(serverPid);
  const result = await autocannon({ url: load.url, connections: load.connections ?? CONNECTIONS, pipelining: load.pipelining ?? PIPELINING, duration: seconds, ...load.options });
  const cpuAfter = cpuMicros(serverPid);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${load.url}: ${result.non2xx} non-2xx replies, ${result.errors} errors`);
  const cpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
  return { requests: result.requests.total, seconds, cpuMicros: cpu, p50: result.latency.p50, p99: result.latency.p99 };
}

/**
 * req/s over the slices; p50 is the median of theirs and p99 the worst; with the server's CPU time
 * per request, which follows the code more than the machine: req/s moved 2x between runs hours
 * apart, CPU per request far less.
 */
function figuresOf(slices: Slice[]) {
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  const p50s = slices.map((s) => s.p50).sort((a, b) => a - b);
  const cpu = slices.every((s) => s.cpuMicros !== null) && requests > 0 ? { server_cpu_us_per_req: Math.round(slices.reduce((sum, s) => sum + s.cpuMicros!, 0) / requests) } : {};
  return { req_per_s: Math.round(requests / seconds), p50_ms: p50s[Math.floor((p50s.length - 1) / 2)]!, p99_ms: Math.max(...slices.map((s) => s.p99)), ...cpu };
}

/** req/s and latency of one load: a warm-up, then BENCH_SECONDS. */
async function measure(load: Load, serverPid: number | undefined) {
  await slice(load, 2, serverPid);
  return figuresOf([await slice(load, DURATION, serverPid)]);
}

const ratio = (x: { req_per_s: number }, to: number) => Number((x.req_per_s / to).toFixed(3));

// Slices of a path and its reference alternate: this VM's speed drifted ±50 % within minutes, and a
// reference measured once before every path compared each path with a different machine.
const ROUNDS = 4;

/**
 * A path beside its reference: both warmed up, then ROUNDS slices of each in turn (BENCH_SECONDS of
 * each in all), so a drift of the machine's speed slows both alike and their ratio compares like
 * with like.
 */
async function measureBeside(reference: Load, path: Load, serverPid: number | undefined) {
  await slice(reference, 2, serverPid);
  await slice(path, 2, serverPid);
  const [ofReference, ofPath]: [Slice[], Slice[]] = [[], []];
  for (let round = 0; round < ROUNDS; round++) {
    ofReference.push(await slice(reference, DURATION / ROUNDS, serverPid));
    ofPath.push(await slice(path, DURATION / ROUNDS, serverPid));
  }
  const [ref, figures] = [figuresOf(ofReference), figuresOf(ofPath)];
  return { ...figures, ratio_to_bare: ratio(figures, ref.req_per_s), bare_beside_it: ref };
}

/**
 * What the harness costs a request at a path's pace, and the path's own work: the bare route slowed
 * by a busy wait to the path's CPU a request (`/spin?us=`). A client core idling between replies
 * must be woken for each one (on this 2-core VM ~10–20 µs of the server's kernel time a reply); a
 * fast route keeps it busy and never pays that, so a path's ratio to the bare route also counts the
 * harness. Its own work is its CPU a request beyond the slowed bare route's (HTTP, routing, the
 * reply and the wake-ups at the same pace).
 */
async function withOwnWork(path: Awaited<ReturnType<typeof measureBeside>>, spinRoute: string, serverPid: number | undefined) {
  if (path.server_cpu_us_per_req === undefined) return path;
  const busyWaitUs = Math.max(0, path.server_cpu_us_per_req - (path.bare_beside_it.server_cpu_us_per_req ?? 0));
  const slowed = await measure({ url: `${spinRoute}?us=${busyWaitUs}`, pipelining: 1 }, serverPid);
  if (slowed.server_cpu_us_per_req === undefined) return path;
  const harness = slowed.server_cpu_us_per_req - busyWaitUs;
  return { ...path, own_work_us_per_req: path.server_cpu_us_per_req - harness, bare_route_as_slow: { busy_wait_us: busyWaitUs, ...slowed, harness_us_per_req: harness } };
}

async function resourceStyle() {
  const target = await startTarget<{ nodeUrl: string; bareUrl: string; token: string; currencyId: string; cards: number; seedMs: number }>('bench/server.ts');
  try {
    const auth = { headers: { authorization: `Bearer ${target.info.token}` } };
    const serverPid = target.child.pid;
    const bare: Load = { url: `${target.info.bareUrl}/hello` };
    const currency = await measureBeside(bare, { url: `${target.info.nodeUrl}/currencies/${target.info.currencyId}`, options: auth }, serverPid);
    // A prefix matching 100 of the vendor's cards: the engine reads, sorts and pages all 100.
    const cards = await measureBeside(bare, { url: `${target.info.nodeUrl}/cards?query=n:C00500&limit=25`, options: auth }, serverPid);
    return {
      settings: { cards_in_db: target.info.cards, seed_ms: target.info.seedMs },
      get_currency_by_id: currency,
      get_cards_filtered: { query: `n:C00500 (up to 100 of ${target.info.cards / 2} cards match), limit 25`, ...cards },
    };
  } finally {
    target.child.kill('SIGTERM');
  }
}

async function inStore() {
  const target = await startTarget<{ nodeUrl: string; bareUrl: string; apiKey: string; customers: number; seedMs: number }>('bench/in-store-server.ts');
  const { nodeUrl, apiKey, customers } = target.info;
  const email = () => `customer${randomInt(customers)}@bench.example`;
  const checkInOne = async (identification: string) => {
    const response = await fetch(`${nodeUrl}/onscreen?api_key=${apiKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ card_number: identification }) });
    if (response.status !== 201) throw new Error(`check-in: ${response.status}`);
    return ((await response.json()) as { pos_session: { hash: string } }).pos_session.hash;
  };
  try {
    // Every in-store figure is at pipelining 1 (a counter waits for each reply): so is its reference.
    const serverPid = target.child.pid;
    const atCounter = { pipelining: 1 };
    const bare: Load = { url: `${target.info.bareUrl}/hello`, ...atCounter };
    // Each path's own work is measured right after it, while the machine runs at the same speed.
    const spin = `${target.info.bareUrl}/spin`;
    // The queue of a store with 10 customers waiting.
    for (let i = 0; i < 10; i++) await checkInOne(`customer${i}@bench.example`);
    const queue = await withOwnWork(await measureBeside(bare, { url: `${nodeUrl}/onscreen/queue?api_key=${apiKey}`, ...atCounter }, serverPid), spin, serverPid);
    // Retrieve customer alone, over 1,000 open sessions of random customers.
    const hashes: string[] = [];
    for (let i = 0; i < 1000; i++) hashes.push(await checkInOne(email()));
    const retrieve = await withOwnWork(await measureBeside(bare, {
      url: nodeUrl,
      options: { requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/onscreen?api_key=${apiKey}&pos_session_hash=${hashes[randomInt(hashes.length)]}` }) }] },
      ...atCounter,
    }, serverPid), spin, serverPid);
    // Check-in alone: a durable write each.
    const checkIns = await withOwnWork(await measureBeside(bare, {
      url: nodeUrl,
      options: {
        requests: [
          {
            method: 'POST',
            path: `/onscreen?api_key=${apiKey}`,
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ card_number: email() }) }),
          },
        ],
      },
      ...atCounter,
    }, serverPid), spin, serverPid);
    let receipt = 0;
    const orderRequest = {
      method: 'POST' as const,
      path: `/order?api_key=${apiKey}`,
      headers: { 'content-type': 'application/json' },
      setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ card_number: email(), receipt_number: `B-${++receipt}`, subtotal: 12.5, items: [{ name: 'Latte', quantity: 1, price: 12.5 }] }) }),
    };
    // Orders beside raw durable commits of the same disk, in turns as measureBeside takes them (the
    // probe runs in the server's process while no order arrives).
    const rawCommitsPerSecond = async (seconds: number) => {
      target.child.stdin!.write(`raw-commits ${seconds}\n`);
      return new Promise<number>((resolve) => target.lines.once('line', (line) => resolve((JSON.parse(line) as { rawCommitsPerSecond: number }).rawCommitsPerSecond)));
    };
    const ordersLoad: Load = { url: nodeUrl, options: { requests: [orderRequest] }, ...atCounter };
    await slice(ordersLoad, 2, serverPid);
    const [orderSlices, rawRates]: [Slice[], number[]] = [[], []];
    for (let round = 0; round < ROUNDS; round++) {
      orderSlices.push(await slice(ordersLoad, DURATION / ROUNDS, serverPid));
      rawRates.push(await rawCommitsPerSecond(DURATION / ROUNDS / 2));
    }
    const orders = figuresOf(orderSlices);
    const raw = Math.round(rawRates.reduce((sum, rate) => sum + rate, 0) / rawRates.length);
    // One client at a time: the latency a single counter sees.
    const orderAlone = await measure({ ...ordersLoad, connections: 1 }, serverPid);
    // The same orders on the node restarted as a paired store (capture and outbox on every command).
    target.child.stdin!.write('paired\n');
    const paired = await new Promise<{ nodeUrl: string }>((resolve) => target.lines.once('line', (line) => resolve(JSON.parse(line))));
    const pairedOrders = await measure({ ...ordersLoad, url: paired.nodeUrl }, serverPid);
    return {
      settings: { customers, seed_ms: target.info.seedMs, synchronous: 'FULL', pipelining: 1 },
      retrieve_customer: retrieve,
      check_in: checkIns,
      queue_10_waiting: queue,
      orders: { ...orders, raw_durable_commits_per_s: raw, ratio_to_raw_commits: Number((orders.req_per_s / raw).toFixed(3)) },
      orders_one_client: orderAlone,
      orders_paired_store: { ...pairedOrders, ratio_to_raw_commits: Number((pairedOrders.req_per_s / raw).toFixed(3)) },
    };
  } finally {
    target.child.kill('SIGTERM');
  }
}

/**
 * A bench script in a child process on every core (this process is pinned to core 1, and a child
 * inherits that): its JSON document from stdout.
 */
async function figuresOfChild(script: string): Promise<unknown> {
  const command = [...onEveryCore, process.execPath];
  const child = spawn(command[0]!, [...command.slice(1), '--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out) as unknown;
}

// BENCH_ONLY=resource_style,in_store runs only those sections (while working on one path).
const only = process.env.BENCH_ONLY?.split(',');
const section = <T>(name: string, run: () => Promise<T>) => (only && !only.includes(name) ? Promise.resolve('skipped') : run());

const figures = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, pinned: canPin, load_average_at_start: loadavg().map((x) => Number(x.toFixed(2))) },
  settings: { duration_s: DURATION, connections: CONNECTIONS, pipelining: PIPELINING, request_log: requestLog },
  resource_style: await section('resource_style', resourceStyle),
  in_store: await section('in_store', inStore),
  // Scripted scan on the node's scanner → the customer's name in the cashier panel in Chromium.
  scan_to_panel: await section('scan_to_panel', () => figuresOfChild('bench/scan-to-panel.ts')),
  // Central's apply rate and app check-in → store queue latency.
  sync: await section('sync', () => figuresOfChild('bench/sync.ts')),
  cold_start: await section('cold_start', coldStartFigures),
  // A store's first sync (snapshot) from a central holding BENCH_FIRST_SYNC_CUSTOMERS (1M) customers:
  // the store node and central (its own process) on every core, as two machines would have them.
  first_sync: await section('first_sync', () => figuresOfChild('bench/first-sync.ts')),
  // One and two `punchcard central` processes on the same PostgreSQL (PG_URL).
  central_scale: await section('central_scale', centralScaleFigures),
  admin_search: await section('admin_search', () => figuresOfChild('bench/admin-search.ts')),
  // `punchcard import customers`' use case: BENCH_IMPORT_ROWS (5,000) members on SQLite and on PostgreSQL (PG_URL).
  import: await section('import', () => figuresOfChild('bench/import.ts')),
};
console.log(JSON.stringify(figures, null, 2));
