import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedYearOldCentral } from '../../bench/seed-year-old-central';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { loadDashboard } from '../../src/core/dashboard/dashboard';
import { loadPeriodStatement } from '../../src/core/dashboard/period-statement';
import { periodStatementCsv } from '../../src/core/dashboard/period-statement-csv';
import { readReport } from '../../src/core/storage/report-snapshot';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { creditQuickPay } from '../../src/core/payments/quick-pay/credit-quick-pay';
import { personalDataDocument } from '../../src/core/personal-data/personal-data-document';
import { addOwner } from '../../src/core/staff/add-owner';
import { openSqlite } from '../../src/core/storage/database';
import { endOffLoopSnapshots } from '../../src/core/storage/off-loop-snapshot';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';
import { makeTempDir } from '../support/temp-dir';

// A chain central's back-office reports read their snapshot on a worker thread (twentieth round):
// a central on an SQLite file with some history (bench/seed-year-old-central.ts, small), where the
// year's statement reads for a while, answers /health and an app request meanwhile, replies the
// figures the in-process read gives, and answers a report whose worker died 503, not 500.

const dir = makeTempDir('punchcard-report-');
const file = `${dir.path}/punchcard.db`;
const clock = new ManualClock(Date.now());
let engine: Engine;
let app: FastifyInstance;
let url: string;
let staffToken: string;
let accessToken: string;
let vendorId: number;
let storeId: number;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const YEAR = `from=${day(clock.now() - 364 * 86400_000)}&to=${day(clock.now())}`;
const SPRING = `from=${day(clock.now() - 300 * 86400_000)}&to=${day(clock.now() - 270 * 86400_000)}`;

beforeAll(async () => {
  engine = await startEngine({ database: openSqlite(file, { backgroundCheckpoints: true }), nodeKey: randomBytes(32), clock, role: 'central' });
  const seed = await seedYearOldCentral(engine, { customers: 5_000, orders: 60_000, stores: 4, audit: 10, deliveries: 10, changes: 10, exceptions: 10 });
  ({ vendorId, storeId } = seed.vendor);
  accessToken = seed.vendor.accessToken;
  const { signInToken } = await addOwner(engine, { vendorId, email: 'owner@report.test', name: 'Owner' });
  app = await buildApp({ engine, role: 'central', version: 'test' });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  const signIn = await fetch(`${url}/backoffice/sign-in/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: signInToken }) });
  staffToken = ((await signIn.json()) as { token: string }).token;
});

afterAll(async () => {
  await app?.close();
  await engine?.close();
  dir.remove();
});

const report = (path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${staffToken}` } });

/** Asks `path` again as soon as it answers until `running` turns false; the times each answer came. */
async function askWhile(running: () => boolean, path: string, headers: Record<string, string> = {}): Promise<number[]> {
  const answered: number[] = [];
  while (running()) {
    const reply = await fetch(`${url}${path}`, { headers });
    expect(reply.status).toBe(200);
    await reply.arrayBuffer();
    answered.push(performance.now());
  }
  return answered;
}

describe('a back-office report on a central’s SQLite file', () => {
  it('leaves the node answering /health and the app while the year’s statement is read', async () => {
    let running = true;
    const askedAt = performance.now();
    let endedAt = 0;
    const statement = report(`/backoffice/dashboard/period?${YEAR}`).then(async (reply) => {
      const body = await reply.text();
      endedAt = performance.now();
      running = false;
      return { status: reply.status, body };
    });
    const [health, app, done] = await Promise.all([askWhile(() => running, '/health'), askWhile(() => running, '/currencies', { authorization: `Bearer ${accessToken}` }), statement]);
    expect(done.status).toBe(200);
    // In-process, the report's statements held the thread from its first read to its last: a
    // request answered only before they began or after they ended (the reply being built). So
    // answers in the middle half of the report's time, not times: a loaded machine is slow.
    const inTheMiddle = (answers: number[]) => answers.filter((at) => at > askedAt + (endedAt - askedAt) / 4 && at < endedAt - (endedAt - askedAt) / 4).length;
    expect(inTheMiddle(health)).toBeGreaterThanOrEqual(2);
    expect(inTheMiddle(app)).toBeGreaterThanOrEqual(2);
  });

  it('replies the figures, the file and the person’s data the in-process read makes', async () => {
    const inProcess = await loadPeriodStatement(engine, vendorId, null, SPRING.slice(5, 15), SPRING.slice(-10));
    expect(await readReport(engine, (reads) => loadPeriodStatement(reads, vendorId, null, SPRING.slice(5, 15), SPRING.slice(-10)))).toEqual(inProcess);
    expect(inProcess.total.orders).toBeGreaterThan(1000);
    const csv = await report(`/backoffice/dashboard/period.csv?${SPRING}`);
    expect(csv.status).toBe(200);
    // The bytes, byte-order mark included (text() would drop it).
    expect(Buffer.from(await csv.arrayBuffer()).toString('utf8')).toBe(periodStatementCsv(inProcess));
    expect(await readReport(engine, (reads) => loadDashboard(reads, vendorId, null))).toEqual(await loadDashboard(engine, vendorId, null));
    expect(await readReport(engine, (reads) => loadDashboard(reads, vendorId, storeId))).toEqual(await loadDashboard(engine, vendorId, storeId));
    const regular = Number((await engine.db.selectFrom('users').select('id').where('email_key', '=', 'c1@bench.test').executeTakeFirstOrThrow()).id);
    const copy = await readReport(engine, (reads) => personalDataDocument(reads, vendorId, regular, 'staff'));
    expect(copy.orders.length).toBeGreaterThan(40);
    expect(copy).toEqual(await personalDataDocument(engine, vendorId, regular, 'staff'));
  });

  it('reads one snapshot: a reload committed while the report reads is not in it', async () => {
    const user = Number((await engine.db.selectFrom('users').select('id').where('email_key', '=', 'template@bench.test').executeTakeFirstOrThrow()).id);
    const reload = (referenceId: string) => transact(engine, (trx) => creditQuickPay(trx, engine, { vendorId, userId: user, amountMinor: 700, kind: 'reload', referenceType: 'test', referenceId, receipts: [] }));
    const [before, during] = await readReport(engine, async (reads) => {
      const first = await loadDashboard(reads, vendorId, null);
      await reload('during');
      return [first, await loadDashboard(reads, vendorId, null)];
    });
    expect(during).toEqual(before);
    const after = await loadDashboard(engine, vendorId, null);
    expect(after.outstandingStoredValue).toBe(before.outstandingStoredValue! + 700);
    expect(after.today.reloadAmount).toBe(before.today.reloadAmount + 700);
  });

  it('answers a report whose worker ends 503 service_unavailable, never a 500, and reads again after', async () => {
    // The worker ended again and again (as a failed thread ends): whenever the report's snapshot opens, it is soon gone.
    const killer = setInterval(() => void endOffLoopSnapshots(file), 20);
    let reply: Response;
    try {
      reply = await report(`/backoffice/dashboard/period?${YEAR}`);
    } finally {
      clearInterval(killer);
    }
    const body = (await reply.json()) as Record<string, unknown>;
    expect(reply.status).toBe(503);
    expect(body).toMatchObject({ code: 'service_unavailable' });
    expect(JSON.stringify(body)).not.toMatch(/ at |stack/);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    // The next report starts a new worker.
    expect((await report('/backoffice/dashboard')).status).toBe(200);
  });
});

describe.each(BACKENDS)('a report read in one snapshot on $name', (backend) => {
  it('gives the figures of the reads made without one', async () => {
    const { engine: local, close } = await openEngine(backend, new ManualClock(Date.parse('2026-11-20T12:00:00Z')));
    try {
      const vendor = await setUpVendor(local, testVendor('Snapshot Café'));
      const { user } = await registerCustomer(local, { vendorId: vendor.vendorId, firstName: 'Lia', lastName: 'Mora', email: 'lia@example.com', password: 'correct horse 1', terms: true });
      await transact(local, (trx) => creditQuickPay(trx, local, { vendorId: vendor.vendorId, userId: user.id, amountMinor: 3000, kind: 'reload', referenceType: 'test', referenceId: 'november', receipts: [] }));
      const statement = (on: Engine) => loadPeriodStatement(on, vendor.vendorId, null, '2026-11-01', '2026-11-30');
      expect(await readReport(local, statement)).toEqual(await statement(local));
      expect(await readReport(local, (on) => loadDashboard(on, vendor.vendorId, null))).toEqual(await loadDashboard(local, vendor.vendorId, null));
    } finally {
      await close();
    }
  });

  // An embedded PGlite reads outside any snapshot (its one connection), so has no limit to reach.
  it.skipIf(backend.name.includes('PGlite'))('answers a report past its limit 503 service_unavailable, not the driver’s error', async () => {
    const { engine: local, close } = await openEngine(backend, new ManualClock());
    try {
      const vendor = await setUpVendor(local, testVendor('Slow Café'));
      let caught: unknown;
      try {
        await readReport(
          local,
          async (on) => {
            await loadDashboard(on, vendor.vendorId, null);
            await new Promise((resolve) => setTimeout(resolve, 300));
            return loadDashboard(on, vendor.vendorId, null);
          },
          100,
        );
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'service_unavailable' });
      // The node reads on.
      expect(await readReport(local, (on) => loadDashboard(on, vendor.vendorId, null))).toEqual(await loadDashboard(local, vendor.vendorId, null));
    } finally {
      await close();
    }
  });
});
