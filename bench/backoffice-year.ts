// The back office of a year-old chain central (nineteenth round): every GET the back-office screens
// call, and the resource lists a bearer pages through, timed over real HTTP against a central node
// (SQLite) holding a million customers and a year of history (bench/seed-year-old-central.ts).
// The database is seeded once into BENCH_DIR (default: a new temporary folder, removed after) and
// reused when it is there, so a fix can be measured against the same data.
// Prints one JSON document: per route, the median and slowest of BENCH_SAMPLES runs (after one warm-up).
// Alone: `npx tsx bench/backoffice-year.ts` (BENCH_CUSTOMERS, BENCH_ORDERS… as the seed reads them).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngine } from '../src/core/engine';
import { addOwner } from '../src/core/staff/add-owner';
import { openSqlite } from '../src/core/storage/database';
import { buildApp } from '../src/server/app';
import { seedYearOldCentral, yearSizes, type YearSizes } from './seed-year-old-central';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const keep = process.env.BENCH_DIR !== undefined;
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), 'pc-bench-year-'));
const metaFile = join(dir, 'year.json');
const seeded = existsSync(metaFile);

interface Meta {
  sizes: YearSizes;
  seedMs: number;
  vendorId: number;
  accessToken: string;
  storeIds: number[];
  regularId: number;
  someoneId: number;
  endpointId: string;
  nodeKey: string;
}

const started = performance.now();
let meta: Meta | undefined = seeded ? (JSON.parse(readFileSync(metaFile, 'utf8')) as Meta) : undefined;
const nodeKey = meta ? Buffer.from(meta.nodeKey, 'hex') : randomBytes(32);
const engine = await startEngine({ database: openSqlite(join(dir, 'punchcard.db')), nodeKey, role: 'central' });
const openMs = Math.round(performance.now() - started);
if (!meta) {
  const sizes = yearSizes();
  const seedStart = performance.now();
  const seed = await seedYearOldCentral(engine, sizes, (step) => console.error(`${Math.round((performance.now() - seedStart) / 1000)} s: ${step}`));
  meta = {
    sizes,
    seedMs: Math.round(performance.now() - seedStart),
    vendorId: seed.vendor.vendorId,
    accessToken: seed.vendor.accessToken,
    storeIds: seed.storeIds,
    regularId: seed.regularId,
    someoneId: seed.customerIdOf(Math.floor(sizes.customers / 2) + 3),
    endpointId: seed.endpointId,
    nodeKey: nodeKey.toString('hex'),
  };
  writeFileSync(metaFile, JSON.stringify(meta));
}
const m = meta;

const { signInToken } = await addOwner(engine, { vendorId: m.vendorId, email: `owner${Date.now()}@bench.test`, name: 'Owner' });
const app = await buildApp({ engine, role: 'central', version: 'bench' });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const signIn = await fetch(`${url}/backoffice/sign-in/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: signInToken }) });
const staffToken = ((await signIn.json()) as { token: string }).token;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const now = Date.now();
const store = m.storeIds[1]!;
const routes: Array<[string, string, 'staff' | 'bearer']> = [
  ['dashboard', '/backoffice/dashboard', 'staff'],
  ['dashboard, one store', `/backoffice/dashboard?store=${store}`, 'staff'],
  ['period, last month', `/backoffice/dashboard/period?from=${day(now - 31 * 86400_000)}&to=${day(now - 86400_000)}`, 'staff'],
  ['period, a month last spring', `/backoffice/dashboard/period?from=${day(now - 300 * 86400_000)}&to=${day(now - 270 * 86400_000)}`, 'staff'],
  ['period, a quarter', `/backoffice/dashboard/period?from=${day(now - 92 * 86400_000)}&to=${day(now - 86400_000)}`, 'staff'],
  ['period, the year', `/backoffice/dashboard/period?from=${day(now - 364 * 86400_000)}&to=${day(now)}`, 'staff'],
  ['period, one store, a month', `/backoffice/dashboard/period?from=${day(now - 31 * 86400_000)}&to=${day(now - 86400_000)}&store=${store}`, 'staff'],
  ['period.csv, last month', `/backoffice/dashboard/period.csv?from=${day(now - 31 * 86400_000)}&to=${day(now - 86400_000)}`, 'staff'],
  ['customers, search email', `/backoffice/customers?q=c123456@bench.test`, 'staff'],
  ['customers, search name prefix', `/backoffice/customers?q=Name12`, 'staff'],
  ['customers, search card', `/backoffice/customers?q=BC000123456`, 'staff'],
  ['customer page, the regular', `/backoffice/customers/${m.regularId}`, 'staff'],
  ['customer page, someone', `/backoffice/customers/${m.someoneId}`, 'staff'],
  ['customer personal data, the regular', `/backoffice/customers/${m.regularId}/personal-data`, 'staff'],
  ['payment exceptions', '/backoffice/payment-exceptions', 'staff'],
  ['unfinished paybacks', '/backoffice/unfinished-paybacks', 'staff'],
  ['audit, first page', '/backoffice/audit', 'staff'],
  ['audit, page 40', '/backoffice/audit?offset=1000', 'staff'],
  ['audit, deep page', `/backoffice/audit?offset=${Math.floor(m.sizes.audit * 0.9)}`, 'staff'],
  ['audit, staff records', '/backoffice/audit?object_type=staff', 'staff'],
  ['audit, staff records, page 40', '/backoffice/audit?object_type=staff&offset=1000', 'staff'],
  ['chain health', '/backoffice/chain', 'staff'],
  ['chain health, resolved too', '/backoffice/chain?resolved=true', 'staff'],
  ['chain health, one store', `/backoffice/chain?store=${store}`, 'staff'],
  ['webhooks', '/backoffice/webhooks', 'staff'],
  ['webhook deliveries', `/backoffice/webhooks/${m.endpointId}/deliveries`, 'staff'],
  ['webhook deliveries, page 100', `/backoffice/webhooks/${m.endpointId}/deliveries?page=100`, 'staff'],
  ['webhook deliveries, deep page', `/backoffice/webhooks/${m.endpointId}/deliveries?page=${Math.floor(m.sizes.deliveries / 20 / 2)}`, 'staff'],
  ['webhook deliveries, failed', `/backoffice/webhooks/${m.endpointId}/deliveries?query=s:failed`, 'staff'],
  ['staff', '/backoffice/staff', 'staff'],
  ['stores', '/backoffice/stores', 'staff'],
  ['store', `/backoffice/stores/${store}`, 'staff'],
  ['store keys', `/backoffice/stores/${m.storeIds[0]}/keys`, 'staff'],
  ['program', '/backoffice/program', 'staff'],
  ['imports', '/backoffice/imports/customers', 'staff'],
  ['me', '/backoffice/me', 'staff'],
  ['GET /cards', '/cards', 'bearer'],
  ['GET /cards, page 1000', '/cards?page=1000', 'bearer'],
  ['GET /cards, deep page', `/cards?page=${Math.floor(m.sizes.customers / 20 / 2)}`, 'bearer'],
  ['GET /currencies', '/currencies', 'bearer'],
  ['GET /currencies, page 1000', '/currencies?page=1000', 'bearer'],
  ['GET /webhooks/:id/deliveries, deep page', `/webhooks/${m.endpointId}/deliveries?page=${Math.floor(m.sizes.deliveries / 20 / 2)}`, 'bearer'],
];

// BENCH_ONLY / BENCH_SKIP: the routes whose names contain it, or all but those.
const only = process.env.BENCH_ONLY;
const skip = process.env.BENCH_SKIP;
const figures: Record<string, unknown> = {};
for (const [name, path, who] of routes) {
  if ((only && !name.includes(only)) || (skip && name.includes(skip))) continue;
  const headers = { authorization: `Bearer ${who === 'staff' ? staffToken : m.accessToken}` };
  const times: number[] = [];
  let status = 0;
  let bytes = 0;
  for (let n = 0; n <= SAMPLES; n++) {
    const t = performance.now();
    const reply = await fetch(`${url}${path}`, { headers });
    const body = await reply.text();
    if (n > 0) times.push(performance.now() - t);
    status = reply.status;
    bytes = body.length;
    if (status >= 500) throw new Error(`${name}: ${status} ${body.slice(0, 300)}`);
  }
  times.sort((a, b) => a - b);
  figures[name] = { status, bytes, median_ms: Number(times[Math.floor(times.length / 2)]!.toFixed(1)), max_ms: Number(times.at(-1)!.toFixed(1)) };
  console.error(`${name}: ${JSON.stringify(figures[name])}`);
}

// The central while a report runs (twentieth round): /health and an app request, each asked again
// as soon as it answers, for as long as the report takes; their slowest answer is how long the
// node stood still. BENCH_WHILE=0 skips this.
const reports: Array<[string, string]> = [
  ['dashboard', '/backoffice/dashboard'],
  ['period, a month last spring', `/backoffice/dashboard/period?from=${day(now - 300 * 86400_000)}&to=${day(now - 270 * 86400_000)}`],
  ['period, the year', `/backoffice/dashboard/period?from=${day(now - 364 * 86400_000)}&to=${day(now)}`],
  ['period.csv, a month last spring', `/backoffice/dashboard/period.csv?from=${day(now - 300 * 86400_000)}&to=${day(now - 270 * 86400_000)}`],
  ['customer personal data, the regular', `/backoffice/customers/${m.regularId}/personal-data`],
];
const whileReports: Record<string, unknown> = {};
for (const [name, path] of process.env.BENCH_WHILE === '0' ? [] : reports) {
  let running = true;
  const t = performance.now();
  const report = fetch(`${url}${path}`, { headers: { authorization: `Bearer ${staffToken}` } })
    .then((reply) => reply.text())
    .finally(() => (running = false));
  const poll = async (target: string, headers: Record<string, string>) => {
    const waits: number[] = [];
    while (running) {
      const asked = performance.now();
      await (await fetch(`${url}${target}`, { headers })).text();
      waits.push(performance.now() - asked);
    }
    return { answers: waits.length, max_ms: Number(Math.max(0, ...waits).toFixed(1)) };
  };
  const [health, app] = await Promise.all([poll('/health', {}), poll('/currencies', { authorization: `Bearer ${m.accessToken}` }), report]);
  whileReports[name] = { report_ms: Number((performance.now() - t).toFixed(1)), health, currencies: app };
  console.error(`while ${name}: ${JSON.stringify(whileReports[name])}`);
}

console.log(JSON.stringify({ sizes: m.sizes, seed_ms: m.seedMs, open_ms: openMs, samples: SAMPLES, routes: figures, while_reports: whileReports }, null, 2));
await app.close();
await engine.close();
if (!keep) rmSync(dir, { recursive: true, force: true });
