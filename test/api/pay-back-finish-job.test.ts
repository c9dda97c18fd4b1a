import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { finishLostPaybacks, PAYBACK_FINISH_GRACE_MS, PAYBACK_STUCK_MS } from '../../src/core/payments/pay-back/finish-lost-paybacks';
import type { TestGateway } from '../../src/core/payments/gateway/test-gateway';
import { openPostgres } from '../../src/core/storage/database';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ManualClock } from '../support/clock';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { paymentsApi } from '../support/payments';
import { createServerDatabase } from '../support/postgres';
import { startTestNode, type TestNode } from '../support/test-node';

// The job that finishes card pay-backs whose gateway answer was lost (finishLostPaybacks, run by
// the node's jobs every 5 minutes), on SQLite and on PostgreSQL: pay-backs are made over real HTTP
// with the test gateway losing the answer (or never reached), then the job asks again under the
// same refund keys. On PostgreSQL two central processes (two engines on one database) run it at once.

type Served = Pick<TestNode, 'url' | 'engine' | 'clock' | 'addVendor'> & { other: Engine; close(): Promise<void> };

/** A central node, and a second central process on the same database (this file's `h5_` prefix). */
async function servedOnPostgres(): Promise<Served> {
  const scratch = await createServerDatabase(process.env.PG_URL!, 'h5_pay_back_job');
  const clock = new ManualClock();
  const engine = await startEngine({ database: openPostgres(scratch.url, 4), nodeKey: randomBytes(32), clock, role: 'central' });
  const other = await startEngine({ database: openPostgres(scratch.url, 4), nodeKey: randomBytes(32), clock, role: 'central' });
  const app = await buildApp({ engine, role: 'central', version: 'test', rateLimits: ROOMY_RATE_LIMITS });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    engine,
    other,
    clock,
    addVendor: (name) => setUpVendor(engine, { name: name ?? 'Vendor', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } }),
    close: async () => {
      await app.close();
      await other.close();
      await engine.close();
      await scratch.drop();
    },
  };
}

/** A standalone store node on SQLite: one process, so "two runs" are two passes at once in it. */
async function servedOnSqlite(): Promise<Served> {
  const node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  return Object.assign(node, { other: node.engine });
}

const NODES: Array<{ name: string; start(): Promise<Served> }> = [
  { name: 'SQLite', start: servedOnSqlite },
  ...(process.env.PG_URL ? [{ name: 'PostgreSQL', start: servedOnPostgres }] : []),
];

describe.each(NODES)('finishing lost card pay-backs without staff on $name', ({ start }) => {
  let node: Served;
  const asNode = () => node as unknown as TestNode;
  const pay = paymentsApi(asNode);
  const gateway = () => node.engine.payments as TestGateway;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let keys = 0;

  beforeAll(async () => {
    node = await start();
    vendor = await node.addVendor('Café Devuelto');
    owner = await ownerOf(asNode(), vendor.vendorId);
  }, 60_000);
  afterAll(() => node?.close());

  const key = () => `job-pay-back-${++keys}`;
  const quickPayOf = async (c: Customer) => Math.round((await pay.quickPay(c.key)) * 100);
  const paybackOf = (k: string) => node.engine.db.selectFrom('stored_value_paybacks').select(['id', 'status', 'amount_paid']).where('idempotency_key', '=', k).executeTakeFirstOrThrow();
  const paybackEntries = async (c: Customer) =>
    (
      await node.engine.db
        .selectFrom('ledger_entries as e')
        .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
        .select('e.amount')
        .where('a.holder_type', '=', 'user')
        .where('a.holder_id', '=', c.userId)
        .where('e.kind', '=', 'payback')
        .orderBy('e.id')
        .execute()
    ).map((e) => Number(e.amount));
  const gatewayRefunds = async () => (await node.engine.db.selectFrom('test_gateway_refunds').select(['amount', 'status']).orderBy('created_at').orderBy('id').execute()).map((r) => [Number(r.amount), r.status]);
  const auditsOf = async (c: Customer) =>
    (await node.engine.db.selectFrom('audit_log').select(['action', 'actor', 'staff_id', 'after']).where('object_id', '=', String(c.userId) as never).where('action', 'like', 'customer.pay_back_%').orderBy('id').execute()).map((a) => ({
      action: a.action,
      actor: a.actor,
      staffId: a.staff_id,
      after: JSON.parse(String(a.after)),
    }));

  async function memberWithReloads(...amounts: number[]): Promise<Customer> {
    const customer = await signUpAt(asNode(), vendor.vendorId);
    const profile = (await pay.addProfileOk(customer.key)).id;
    for (const amount of amounts) {
      await pay.reloadOk(customer.key, { user_billingprofile: profile, amount });
      node.clock.advance(60_000);
    }
    return customer;
  }

  /** A card pay-back the gateway left unknown (503): `lose` made the refund and lost the answer; `refuse` never reached it. */
  async function unfinishedPayback(customer: Customer, amount: number, how: 'lose' | 'refuse'): Promise<string> {
    const k = key();
    if (how === 'lose') gateway().loseNextAnswers(1);
    else gateway().refuseNextRequests(1);
    const reply = await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${customer.userId}/pay-backs`, { amount, method: 'card', idempotency_key: k });
    expect([reply.status, reply.body.code]).toEqual([503, 'payment_gateway_unavailable']);
    expect((await paybackOf(k)).status).toBe('refunding');
    return k;
  }

  it('finishes a refund whose answer was lost, once, audited as the system; a second pass finds nothing', async () => {
    const customer = await memberWithReloads(8);
    const before = (await gatewayRefunds()).length;
    const k = await unfinishedPayback(customer, 800, 'lose');
    node.clock.advance(PAYBACK_FINISH_GRACE_MS + 1000);
    const first = await finishLostPaybacks(node.engine);
    expect(first).toMatchObject({ paid: 1, returned: 0, waiting: 0, stuck: [], errors: 0 });
    const second = await finishLostPaybacks(node.engine);
    expect(second.checked).toBe(0);
    expect(await paybackOf(k)).toMatchObject({ status: 'paid' });
    // Asked again under the same refund key: the gateway made the refund once.
    expect((await gatewayRefunds()).slice(before)).toEqual([[800, 'succeeded']]);
    expect(await paybackEntries(customer)).toEqual([-800]);
    expect(await quickPayOf(customer)).toBe(0);
    const finished = (await auditsOf(customer)).filter((a) => a.action === 'customer.pay_back_finished');
    expect(finished).toEqual([{ action: 'customer.pay_back_finished', actor: 'system', staffId: null, after: expect.objectContaining({ status: 'paid', amount_paid: 800, returned: 0 }) }]);
    // The customer's page no longer offers to finish it.
    expect((await staffCall(asNode(), owner.token, 'GET', `/backoffice/customers/${customer.userId}/pay-back`)).body.unfinished).toEqual([]);
  });

  it('two runs at once (two processes on PostgreSQL) send each refund once and return a refused part once', async () => {
    const paidInFull = await memberWithReloads(5);
    const partly = await memberWithReloads(3, 4);
    const before = (await gatewayRefunds()).length;
    // Never reached the gateway: both runs ask it for the same refunds.
    const full = await unfinishedPayback(paidInFull, 500, 'refuse');
    const part = await unfinishedPayback(partly, 600, 'refuse');
    // The older reload was refunded at the processor by hand meanwhile: its 2.00 part is refused.
    const older = await node.engine.db.selectFrom('payment_charges').select('gateway_charge_id').where('user_id', '=', partly.userId).orderBy('created_at').executeTakeFirstOrThrow();
    expect((await gateway().refund(older.gateway_charge_id!, 'by-hand')).status).toBe('succeeded');
    node.clock.advance(PAYBACK_FINISH_GRACE_MS + 1000);

    const [a, b] = await Promise.all([finishLostPaybacks(node.engine), finishLostPaybacks(node.other)]);
    // Neither run failed: the one that came second found each refund made under its key.
    expect(a.errors + b.errors).toBe(0);
    expect(a.paid + b.paid).toBe(1);
    expect(a.returned + b.returned).toBe(1);
    expect(await paybackOf(full)).toMatchObject({ status: 'paid' });
    expect(await paybackOf(part)).toMatchObject({ status: 'partial' });
    expect(Number((await paybackOf(part)).amount_paid)).toBe(400);
    expect(
      (await gatewayRefunds())
        .slice(before)
        .map((r) => r.join(':'))
        .sort(),
    ).toEqual(['200:failed', '400:succeeded', '500:succeeded']);
    expect(await paybackEntries(paidInFull)).toEqual([-500]);
    expect(await paybackEntries(partly)).toEqual([-600, 200]);
    expect(await quickPayOf(partly)).toBe(300);
    expect((await auditsOf(partly)).map((x) => [x.action, x.actor])).toEqual([
      ['customer.pay_back_finished', 'system'],
      ['customer.pay_back_refused', 'system'],
    ]);
    expect((await auditsOf(paidInFull)).map((x) => x.action)).toEqual(['customer.pay_back_finished']);
    expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
  });

  it('a refund the gateway refuses comes back to the balance: refused, the balance as it was', async () => {
    const customer = await memberWithReloads(12);
    const k = await unfinishedPayback(customer, 1200, 'refuse');
    expect(await quickPayOf(customer)).toBe(0);
    gateway().declineNextRefunds(1);
    node.clock.advance(PAYBACK_FINISH_GRACE_MS + 1000);
    expect(await finishLostPaybacks(node.engine)).toMatchObject({ paid: 0, returned: 1, errors: 0 });
    expect(await paybackOf(k)).toMatchObject({ status: 'refused' });
    expect(await paybackEntries(customer)).toEqual([-1200, 1200]);
    expect(await quickPayOf(customer)).toBe(1200);
    expect((await finishLostPaybacks(node.engine)).checked).toBe(0);
    expect(await paybackEntries(customer)).toEqual([-1200, 1200]);
  });

  it('leaves alone a pay-back younger than the grace (its request may still be waiting on its answer)', async () => {
    const customer = await memberWithReloads(6);
    const before = (await gatewayRefunds()).length;
    const k = await unfinishedPayback(customer, 600, 'refuse');
    node.clock.advance(PAYBACK_FINISH_GRACE_MS - 1000);
    expect((await finishLostPaybacks(node.engine)).checked).toBe(0);
    expect(await gatewayRefunds()).toHaveLength(before);
    expect(await paybackOf(k)).toMatchObject({ status: 'refunding' });
    node.clock.advance(2000);
    expect(await finishLostPaybacks(node.engine)).toMatchObject({ checked: 1, paid: 1 });
    expect((await gatewayRefunds()).slice(before)).toEqual([[600, 'succeeded']]);
  });

  it('never runs at a paired store (its pay-backs are central’s)', async () => {
    const customer = await memberWithReloads(4);
    const before = (await gatewayRefunds()).length;
    const k = await unfinishedPayback(customer, 400, 'refuse');
    node.clock.advance(PAYBACK_FINISH_GRACE_MS + 1000);
    node.engine.programRole = 'replica';
    try {
      expect(await finishLostPaybacks(node.engine)).toMatchObject({ checked: 0, paid: 0 });
    } finally {
      node.engine.programRole = 'owner';
    }
    expect(await paybackOf(k)).toMatchObject({ status: 'refunding' });
    expect(await gatewayRefunds()).toHaveLength(before);
    expect(await finishLostPaybacks(node.engine)).toMatchObject({ paid: 1 });
  });

  it('a gateway still unreachable leaves it for the next pass; after a day it is reported stuck (last: a day ends the staff session)', async () => {
    const customer = await memberWithReloads(7);
    const k = await unfinishedPayback(customer, 700, 'refuse');
    node.clock.advance(PAYBACK_FINISH_GRACE_MS + 1000);
    gateway().refuseNextRequests(1);
    expect(await finishLostPaybacks(node.engine)).toMatchObject({ checked: 1, paid: 0, waiting: 1, stuck: [] });
    expect(await paybackOf(k)).toMatchObject({ status: 'refunding' });
    node.clock.advance(PAYBACK_STUCK_MS);
    gateway().refuseNextRequests(1);
    const id = Number((await paybackOf(k)).id);
    expect(await finishLostPaybacks(node.engine)).toMatchObject({ waiting: 1, stuck: [id] });
    expect(await finishLostPaybacks(node.engine)).toMatchObject({ paid: 1, stuck: [] });
    expect(await paybackEntries(customer)).toEqual([-700]);
  });

});
