// npm run bench: throughput of the resource-style hot paths next to a bare Fastify route measured
// in the same run on the same machine. Prints one JSON document.
import { spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;
const PIPELINING = 10;

// Server on core 0, load generator on core 1 when taskset exists and there are two cores.
const canPin = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0;
const serverCmd = canPin ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
if (canPin) spawnSync('taskset', ['-cp', '1', String(process.pid)]);

const server = spawn(serverCmd[0]!, [...serverCmd.slice(1), '--import', 'tsx', 'bench/server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
const target = await new Promise<{ nodeUrl: string; bareUrl: string; token: string; currencyId: string; cards: number; seedMs: number }>((resolve, reject) => {
  server.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  createInterface({ input: server.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
});

async function measure(url: string, headers: Record<string, string> = {}) {
  // Warm-up, then the measured run.
  await autocannon({ url, headers, connections: CONNECTIONS, pipelining: PIPELINING, duration: 2 });
  const result = await autocannon({ url, headers, connections: CONNECTIONS, pipelining: PIPELINING, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx replies, ${result.errors} errors`);
  return { req_per_s: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99 };
}

try {
  const auth = { authorization: `Bearer ${target.token}` };
  const bare = await measure(`${target.bareUrl}/hello`);
  const currency = await measure(`${target.nodeUrl}/currencies/${target.currencyId}`, auth);
  // A prefix matching 100 of the vendor's cards: the engine reads, sorts and pages all 100.
  const cards = await measure(`${target.nodeUrl}/cards?query=n:C00500&limit=25`, auth);
  const ratio = (x: { req_per_s: number }) => Number((x.req_per_s / bare.req_per_s).toFixed(3));
  console.log(
    JSON.stringify(
      {
        machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, pinned: canPin },
        settings: { duration_s: DURATION, connections: CONNECTIONS, pipelining: PIPELINING, cards_in_db: target.cards, seed_ms: target.seedMs },
        bare_fastify_route: bare,
        get_currency_by_id: { ...currency, ratio_to_bare: ratio(currency) },
        get_cards_filtered: { query: 'n:C00500 (100 of 100,000 cards match), limit 25', ...cards, ratio_to_bare: ratio(cards) },
      },
      null,
      2,
    ),
  );
} finally {
  server.kill('SIGTERM');
}
