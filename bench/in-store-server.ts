// Bench target for the in-store hot paths: a store node with BENCH_CUSTOMERS customers (default 1M)
// linked to one vendor, plus a bare Fastify route and a raw durable-commit probe in the same process.
// Prints one JSON line with what to hit.
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { prepareCustomerInserts } from '../test/support/seed-customers';
import Fastify from 'fastify';
import { startEngine } from '../src/core/engine';
import { openSqlite } from '../src/core/storage/database';
import { composeId } from '../src/core/storage/ids';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { buildApp } from '../src/server/app';
import { installChangeCapture } from '../src/core/sync/capture/install-capture';
import { makeTempDir } from '../test/support/temp-dir';
import { benchLogger } from './request-log';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
const dir = makeTempDir('punchcard-bench-store-');
const file = `${dir.path}/store.db`;

let engine = await startEngine({ database: openSqlite(file), nodeKey: randomBytes(32), role: 'store' });
const vendor = await setUpVendor(engine, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'Bench Store', address1: '1 Bench St', city: 'Bench' } });
const tier = await engine.db.selectFrom('tiers').select('id').where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow();
const nodeId = engine.nodeId;
await engine.close();

// Seeding a million customers through the use cases would take an hour; plain SQL in big
// transactions takes seconds. Ids come from a range of the sequence reserved here.
const seedStart = Date.now();
const raw = new BetterSqlite3(file);
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = OFF');
const base = Number((raw.prepare("select value from id_sequences where name = 'objects'").get() as { value: number }).value);
raw.prepare("update id_sequences set value = ? where name = 'objects'").run(base + CUSTOMERS * 2 + 10);
const now = Date.now();
const { user, link } = prepareCustomerInserts(raw);
raw.transaction(() => {
  for (let i = 0; i < CUSTOMERS; i++) {
    const userId = composeId(nodeId, base + 1 + i * 2);
    const email = `customer${i}@bench.example`;
    user.run(userId, email, email, 'Customer', String(i), `+1202${String(5_000_000 + i).padStart(7, '0')}`, vendor.vendorId, now, now);
    link.run(composeId(nodeId, base + 2 + i * 2), userId, vendor.vendorId, tier.id, now, `r${i}`, now, now);
  }
})();
raw.close();
const seedMs = Date.now() - seedStart;

engine = await startEngine({ database: openSqlite(file), nodeKey: randomBytes(32), role: 'store' });
let app = await buildApp({ engine, role: 'store', version: 'bench', ...benchLogger(dir.path) });
const nodeUrl = await app.listen({ port: 0, host: '127.0.0.1' });

/**
 * The same node restarted as a chain's store would run (a replica of central's program, change
 * capture on, every command sealed into an outbox event), with central reachable: what a paired
 * store pays per order. Nothing pushes the outbox here; it only grows.
 */
async function restartAsPairedStore(): Promise<string> {
  await app.close();
  await engine.close();
  engine = await startEngine({ database: openSqlite(file), nodeKey: randomBytes(32), role: 'store', programRole: 'replica' });
  await installChangeCapture(engine.db, engine.dialect, 'store');
  app = await buildApp({ engine, role: 'store', version: 'bench', ...benchLogger(dir.path) });
  return app.listen({ port: 0, host: '127.0.0.1' });
}
const bare = Fastify();
bare.get('/hello', async () => ({ hello: 'world' }));
// The bare route made slow: it answers after `us` microseconds of CPU (a busy wait), so the harness's
// own cost per request can be measured at a slow path's pace (bench/run.ts).
bare.get<{ Querystring: { us?: string } }>('/spin', async (request) => {
  const end = process.hrtime.bigint() + BigInt(Math.round(Number(request.query.us ?? 0) * 1000));
  while (process.hrtime.bigint() < end);
  return { hello: 'world' };
});
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

/** The floor for orders: raw durable commits (WAL, synchronous=FULL), one small insert each. */
function rawDurableCommitsPerSecond(seconds: number): number {
  const probe = new BetterSqlite3(`${dir.path}/probe.db`);
  probe.pragma('journal_mode = WAL');
  probe.pragma('synchronous = FULL');
  probe.exec('create table if not exists t (id integer primary key, v text)');
  const insert = probe.prepare('insert into t (v) values (?)');
  const commit = probe.transaction((v: string) => insert.run(v));
  const end = Date.now() + seconds * 1000;
  let n = 0;
  while (Date.now() < end) {
    commit(`row ${n}`);
    n++;
  }
  probe.close();
  return Math.round(n / seconds);
}

process.stdout.write(`${JSON.stringify({ nodeUrl, bareUrl, apiKey: vendor.apiKey, customers: CUSTOMERS, seedMs })}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  const [command, seconds] = line.trim().split(' ');
  if (command === 'raw-commits') process.stdout.write(`${JSON.stringify({ rawCommitsPerSecond: rawDurableCommitsPerSecond(Number(seconds)) })}\n`);
  if (command === 'paired') void restartAsPairedStore().then((url) => process.stdout.write(`${JSON.stringify({ nodeUrl: url })}\n`));
});
process.on('SIGTERM', async () => {
  await app.close();
  await bare.close();
  await engine.close();
  dir.remove();
  process.exit(0);
});
