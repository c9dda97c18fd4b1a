// Central beyond one process (issue 13, item 6): one and then two `punchcard central` processes on
// the same PostgreSQL (PG_URL), serving one program, measured the same way in the same run: the
// queue read (GET /onscreen/queue) and check-ins (POST /onscreen, a durable write), 50 connections
// in all, pipelining 1. With two processes the load is split evenly between them. Prints one JSON
// document; bench/run.ts includes it. Without PG_URL it says so and measures nothing.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { onEveryCore } from './cores';
import { freePort } from '../test/support/free-port';
import { createServerDatabase } from '../test/support/postgres';
import { makeTempDir } from '../test/support/temp-dir';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'punchcard.js');
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;
const CUSTOMERS = 200;

async function startCentral(dir: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  // npm run bench pins itself to one core: the central processes get every core back (they share
  // them with PostgreSQL and the load generator).
  const command = [...onEveryCore, process.execPath, BIN, 'central', '--data', dir, '--port', String(port), '--log-level', 'warn'];
  const child = spawn(command[0]!, command.slice(1), { env, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries += 1) {
    if (child.exitCode !== null) throw new Error(`punchcard central exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    if (tries > 600) throw new Error('punchcard central never answered');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The same load spread over the given processes at once; the sum of their throughputs. */
async function measure(urls: string[], path: (i: number) => autocannon.Request) {
  const run = (duration: number) =>
    Promise.all(
      urls.map((url) => {
        let i = 0;
        return autocannon({ url, connections: CONNECTIONS / urls.length, pipelining: 1, duration, requests: [{ setupRequest: (req) => ({ ...req, ...path((i += 1)) }) }] });
      }),
    );
  await run(2);
  const results = await run(DURATION);
  const errors = results.reduce((n, r) => n + r.non2xx + r.errors, 0);
  if (errors > 0) throw new Error(`${errors} failed requests`);
  return {
    req_per_s: Math.round(results.reduce((n, r) => n + r.requests.average, 0)),
    p99_ms: Math.max(...results.map((r) => r.latency.p99)),
  };
}

export async function centralScaleFigures(): Promise<Record<string, unknown>> {
  const server = process.env.PG_URL;
  if (!server) return { skipped: 'set PG_URL to a PostgreSQL server to measure central processes' };
  const scratch = await createServerDatabase(server, 'punchcard_scale');
  const env = { ...process.env, PUNCHCARD_DATABASE_URL: scratch.url };
  const dir = makeTempDir('punchcard-bench-central-');
  const children: ChildProcess[] = [];
  try {
    const init = spawnSync(process.execPath, [BIN, 'init', '--data', dir.path, '--vendor', 'Bench', '--json'], { env, encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`punchcard init failed: ${init.stderr}`);
    const program = JSON.parse(init.stdout) as { api_key: string };
    const first = await startCentral(dir.path, env);
    children.push(first.child);
    const emails = Array.from({ length: CUSTOMERS }, (_, i) => `c${i}@bench.test`);
    for (const email of emails) {
      await fetch(`${first.url}/onscreen/register?api_key=${program.api_key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    }
    // Statistics as autovacuum leaves them a minute after a load: without them the planner
    // guesses one row per table and joins the queue's 200 customers to every membership (3x slower).
    const stats = new pg.Client({ connectionString: scratch.url });
    await stats.connect();
    await stats.query('analyze');
    await stats.end();
    const queue = () => ({ method: 'GET' as const, path: `/onscreen/queue?api_key=${program.api_key}` });
    const checkIn = (i: number) => ({ method: 'POST' as const, path: `/onscreen?api_key=${program.api_key}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ card_number: emails[i % CUSTOMERS] }) });
    const one = { queue: await measure([first.url], queue), check_in: await measure([first.url], checkIn) };
    const second = await startCentral(dir.path, env);
    children.push(second.child);
    const two = { queue: await measure([first.url, second.url], queue), check_in: await measure([first.url, second.url], checkIn) };
    return {
      settings: { database: 'postgresql', connections: CONNECTIONS, pipelining: 1, duration_s: DURATION, customers: CUSTOMERS, note: 'processes not pinned: on 2 cores they share them with PostgreSQL and the load generator' },
      one_process: one,
      two_processes: two,
      ratio_two_to_one: { queue: Number((two.queue.req_per_s / one.queue.req_per_s).toFixed(2)), check_in: Number((two.check_in.req_per_s / one.check_in.req_per_s).toFixed(2)) },
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    dir.remove();
    await scratch.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await centralScaleFigures(), null, 2));
}
