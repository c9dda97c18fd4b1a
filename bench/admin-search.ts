// Back-office customer search at scale (issue 15): one program with BENCH_CUSTOMERS customers
// (default 1,000,000), each with an email, a phone and a linked card, on a SQLite file; then
// GET /backoffice/customers?q=… over real HTTP for random customers by email, phone and card
// (the counter's exact, indexed lookups), by a last name as a prefix, and by prefixes many
// customers share (a name's first letters).
// Prints one JSON document (`npm run bench` includes it; alone: `npx tsx bench/admin-search.ts`).
// Seeding is bulk: one real customer is made through the use cases, then copied row by row in SQL.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createCard } from '../src/core/cards/create-card';
import { authenticateApiKey } from '../src/core/credentials/authenticate';
import { startEngine } from '../src/core/engine';
import { registerInStore } from '../src/core/onscreen/register-in-store';
import { addOwner } from '../src/core/staff/add-owner';
import { openSqlite } from '../src/core/storage/database';
import type { DB } from '../src/core/storage/schema';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { buildApp } from '../src/server/app';
import { benchLogger } from './request-log';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
const SAMPLES = 200;
const dir = mkdtempSync(join(tmpdir(), 'pc-bench-admin-'));
const database = openSqlite(join(dir, 'punchcard.db'));
const engine = await startEngine({ database, nodeKey: randomBytes(32), role: 'store' });
const db = engine.db;

const vendor = await setUpVendor(engine, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
const scope = await authenticateApiKey(engine, vendor.apiKey);
await createCard(engine, { vendorId: vendor.vendorId }, { number: 'TEMPLATE0' });
await registerInStore(engine, scope, { email: 'template@bench.test', phone: { number: '4155550000', code: '1' }, firstName: 'Tem', lastName: 'Plate', cardNumber: 'TEMPLATE0' });
const template = await db.selectFrom('users').select('id').where('email_key', '=', 'template@bench.test').executeTakeFirstOrThrow();

/** Copies the template's row of `table` CUSTOMERS times, with `overrides` (SQL over i = 1…N and t = the template row). */
async function copyRows(table: keyof DB, where: string, overrides: Record<string, string>): Promise<void> {
  const columns = (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows.map((r) => r.name);
  const select = columns.map((c) => overrides[c] ?? `t.${c}`).join(', ');
  await sql
    .raw(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${CUSTOMERS}) insert into ${table} (${columns.join(', ')}) select ${select} from n, ${table} t where ${where}`)
    .execute(db);
}

const seedStart = performance.now();
const U = 1_000_000_000_000; // id bases far from the node's own ids, under 2^53
await copyRows('users', `t.id = ${template.id}`, {
  id: `${U} + i`,
  email: `'c' || i || '@bench.test'`,
  email_key: `'c' || i || '@bench.test'`,
  phone: `'+1415' || (2000000 + i)`,
  first_name: `'Name' || (i % 997)`,
  last_name: `'Last' || i`,
});
await copyRows('user_vendors', `t.user_id = ${template.id}`, { id: `${2 * U} + i`, user_id: `${U} + i`, referral_code: `'ref' || i` });
await copyRows('cards', `t.number = 'TEMPLATE0'`, { id: `${3 * U} + i`, public_id: `'card_bench' || i`, number: `'BC' || printf('%09d', i)`, number_key: `'BC' || printf('%09d', i)` });
await copyRows('user_cards', `t.user_id = ${template.id}`, { id: `${4 * U} + i`, card_id: `${3 * U} + i`, user_id: `${U} + i` });
// No ANALYZE: a node never runs it, and statistics hid a plan that read every member for a name search.
const seedMs = Math.round(performance.now() - seedStart);

const { signInToken } = await addOwner(engine, { vendorId: vendor.vendorId, email: 'owner@bench.test', name: 'Owner' });
const app = await buildApp({ engine, role: 'store', version: 'bench', ...benchLogger(dir) });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const signIn = await fetch(`${url}/backoffice/sign-in/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: signInToken }) });
const token = ((await signIn.json()) as { token: string }).token;

async function timeSearches(kind: string, queryOf: (i: number) => string, expectOne: boolean, samples = SAMPLES) {
  const times: number[] = [];
  for (let n = 0; n < samples; n++) {
    const i = 1 + Math.floor(Math.random() * CUSTOMERS);
    const started = performance.now();
    const reply = await fetch(`${url}/backoffice/customers?q=${encodeURIComponent(queryOf(i))}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await reply.json()) as { items: Array<{ id: number }> };
    times.push(performance.now() - started);
    if (reply.status !== 200 || (expectOne && body.items[0]?.id !== U + i)) throw new Error(`${kind} search for customer ${i} answered ${reply.status} ${JSON.stringify(body).slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2));
  return { samples, p50_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1) };
}

const byEmail = await timeSearches('email', (i) => `c${i}@bench.test`, true);
const byPhone = await timeSearches('phone', (i) => `(415) ${String(2_000_000 + i).slice(0, 3)}-${String(2_000_000 + i).slice(3)}`, true);
const byCard = await timeSearches('card', (i) => `BC${String(i).padStart(9, '0')}`, true);
const byName = await timeSearches('name', (i) => `Last${i}`, false);
// Prefixes many customers share (first names are Name0…Name996): a search box's first letters.
const BROAD = ['L', 'Last1', 'Name', 'Name1', 'Name99', 'Nam'];
const byBroadName = await timeSearches('broad name', (i) => BROAD[i % BROAD.length]!, false, 30);
const p95s = [byEmail.p95_ms, byPhone.p95_ms, byCard.p95_ms];

console.log(
  JSON.stringify(
    {
      customers: CUSTOMERS,
      seed_ms: seedMs,
      by_email: byEmail,
      by_phone: byPhone,
      by_card: byCard,
      identifier_p95_under_100_ms: p95s.every((p) => p < 100),
      // Not an identifier: a customer's whole last name, as a prefix (Last1234 also finds Last12340–Last123499).
      by_last_name_prefix: byName,
      broad_prefixes: BROAD,
      by_broad_name_prefix: byBroadName,
    },
    null,
    2,
  ),
);
await app.close();
await engine.close();
rmSync(dir, { recursive: true, force: true });
