import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { ManualClock } from '../support/clock';
import { type Customer, freshEmail, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { CARDS, paymentsApi } from '../support/payments';
import { openTestPostgres } from '../support/postgres';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// A double-clicked eGift: five requests with one Idempotency-Key at once, over real HTTP. A guest's
// card is tokenized per request, so a duplicate that re-sent the first request's charge carried
// another token under the same gateway key, which the processor refuses: one of them answered 503
// payment_gateway_unavailable although the gift was bought. Now a duplicate waits for the first and
// answers the same gift: one charge, one gift, one email. On SQLite and on PostgreSQL.

/** What the calls below need of a node: its URL and engine (the PostgreSQL one is built here). */
type Served = Pick<TestNode, 'url' | 'engine' | 'clock' | 'addVendor'> & { close(): Promise<void> };

async function servedOnPostgres(): Promise<Served> {
  const pg = await openTestPostgres();
  const clock = new ManualClock();
  const engine = await startEngine({ database: pg.database, nodeKey: randomBytes(32), clock, role: 'central' });
  const app = await buildApp({ engine, role: 'central', version: 'test', rateLimits: ROOMY_RATE_LIMITS });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  let count = 0;
  return {
    url,
    engine,
    clock,
    addVendor: (name) => setUpVendor(engine, { name: name ?? `Vendor ${++count}`, currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } }),
    close: async () => {
      await app.close();
      await engine.close();
      await pg.drop();
    },
  };
}

const NODES: Array<{ name: string; start(): Promise<Served> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: servedOnPostgres },
];

describe.each(NODES)('a double-clicked eGift on $name', ({ start }) => {
  let node: Served;
  // The helpers take a TestNode and use only its url and engine.
  const asNode = () => node as unknown as TestNode;
  const api = paymentsApi(asNode);
  beforeAll(async () => {
    node = await start();
  }, 60_000);
  afterAll(() => node?.close());

  const count = async (table: 'payment_charges' | 'test_gateway_charges' | 'egifts' | 'messages_outbox', vendorId: number) => {
    const rows = await node.engine.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).$if(table !== 'test_gateway_charges', (q) => q.where('vendor_id' as never, '=', vendorId as never)).executeTakeFirstOrThrow();
    return Number(rows.n);
  };

  async function fiveAtOnce(vendorId: number, pay: Record<string, unknown>, session?: string, key = 'double-click'): Promise<HttpReply[]> {
    const body = { amount: 25, buyer: { name: 'Mateo Ruiz', email: freshEmail('buyer') }, recipient: { name: 'Ana López', email: freshEmail('ana') }, ...pay };
    const path = `/vendor/${vendorId}/egift`;
    const url = `${node.url}${session ? withSessionKey(path, session) : path}`;
    return Promise.all(Array.from({ length: 5 }, () => http(url, { method: 'POST', body, headers: { 'idempotency-key': key } })));
  }

  function expectOneGift(replies: HttpReply[], status: 'Sent' | 'Pending') {
    expect(replies.map((r) => [r.status, r.body.error?.errors?.[0]?.reason ?? null])).toEqual(Array.from({ length: 5 }, () => [200, null]));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(replies.map((r) => r.body.status)).toEqual(Array.from({ length: 5 }, () => status));
  }

  it('with a guest card: every request answers the one gift; one charge, one gift, one email', async () => {
    const v = await node.addVendor('Double click guest');
    const gatewayBefore = await count('test_gateway_charges', v.vendorId);
    const replies = await fiveAtOnce(v.vendorId, { billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' } });
    expectOneGift(replies, 'Sent');
    expect(await count('payment_charges', v.vendorId)).toBe(1);
    expect((await count('test_gateway_charges', v.vendorId)) - gatewayBefore).toBe(1);
    expect(await count('egifts', v.vendorId)).toBe(1);
    expect(await count('messages_outbox', v.vendorId)).toBe(1);
  });

  it('with a saved card, and with a card that answers late (Pending for all)', async () => {
    const v = await node.addVendor('Double click profile');
    const c: Customer = await signUpAt(asNode(), v.vendorId);
    const visa = await api.addProfileOk(c.key, CARDS.visa);
    expectOneGift(await fiveAtOnce(v.vendorId, { user_billingprofile: visa.id }, c.key), 'Sent');
    expect(await api.gatewayCharges(visa.id)).toBe(1);

    const late = await api.addProfileOk(c.key, CARDS.late);
    const replies = await fiveAtOnce(v.vendorId, { user_billingprofile: late.id }, c.key, 'double-click-late');
    expectOneGift(replies, 'Pending');
    expect(await api.gatewayCharges(late.id)).toBe(1);
    expect(await count('egifts', v.vendorId)).toBe(2);
  });
});
