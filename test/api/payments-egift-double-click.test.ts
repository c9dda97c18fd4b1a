import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Customer, freshEmail, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { CARDS, paymentsApi } from '../support/payments';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// A double-clicked eGift: five requests with one Idempotency-Key at once, over real HTTP. A guest's
// card is tokenized per request, so a duplicate that re-sent the first request's charge carried
// another token under the same gateway key, which the processor refuses: one of them answered 503
// payment_gateway_unavailable although the gift was bought. Now a duplicate waits for the first and
// answers the same gift: one charge, one gift, one email. On SQLite and on PostgreSQL.

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

describe.each(NODES)('a double-clicked eGift on $name', ({ start }) => {
  let node: ServedNode;
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

  /** Five 200s answering one gift, each with the status given (or one of those given). */
  function expectOneGift(replies: HttpReply[], status: 'Sent' | 'Pending' | Array<'Sent' | 'Pending'>) {
    expect(replies.map((r) => [r.status, r.body.error?.errors?.[0]?.reason ?? null])).toEqual(Array.from({ length: 5 }, () => [200, null]));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    const allowed = Array.isArray(status) ? status : [status];
    for (const reply of replies) expect(allowed).toContain(reply.body.status);
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
    // The card answers pending, and completes at its second status poll: a duplicate answered after
    // the gift's card result arrived says Sent, truthfully (on embedded PGlite, whose one connection
    // serialises the five, some do). Never another gift, never a refusal.
    expectOneGift(replies, ['Pending', 'Sent']);
    expect(replies.map((r) => r.body.status)).toContain('Pending');
    expect(await api.gatewayCharges(late.id)).toBe(1);
    expect(await count('egifts', v.vendorId)).toBe(2);
  });
});
