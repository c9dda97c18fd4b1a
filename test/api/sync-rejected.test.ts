import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordVerdicts } from '../../src/core/sync/outbox/pending-events';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { expectResourceError } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// GET /sync/rejected?api_key over real HTTP: the events of this store that central refused, newest
// first, with central's code and message, for the staff who look into them (Settings lists them).
// A cashier's key only: the reasons may name a receipt or a card.

let node: TestNode;
let vendor: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode();
  vendor = await node.addVendor('Refusals');
  // Four events sent: the first and third applied, the second and fourth refused; a fifth still waiting.
  for (let seq = 1; seq <= 5; seq += 1) {
    await sql`insert into sync_events (node_seq, event_id, node_id, type, version, payload, offline, created_at) values (${seq}, ${`evt-${seq}`}, ${node.engine.nodeId}, ${seq === 4 ? 'card.linked' : 'order.placed'}, 1, '{}', 1, ${Date.UTC(2026, 10, 20, 9, seq)})`.execute(node.engine.db);
  }
  const verdict = (seq: number, refused: { code: string; message: string } | null) =>
    refused ? { node_seq: seq, event_id: `evt-${seq}`, verdict: 'rejected' as const, ...refused } : { node_seq: seq, event_id: `evt-${seq}`, verdict: 'applied' as const, code: null, message: null };
  await node.engine.db.transaction().execute((trx) =>
    recordVerdicts(trx, node.engine, [
      verdict(1, null),
      verdict(2, { code: 'table_not_accepted', message: 'Central does not take rows of that table from a store.' }),
      verdict(3, null),
      verdict(4, { code: 'card_taken', message: 'Card C-7 belongs to another customer.' }),
    ]),
  );
});

afterAll(async () => {
  await node?.close();
});

const rejected = (query: string) => http(`${node.url}/sync/rejected?${query}`);

describe('GET /sync/rejected', () => {
  it('lists the refused events newest first with central’s reasons; applied and waiting ones are not in it', async () => {
    const reply = await rejected(`api_key=${encodeURIComponent(vendor.apiKey)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      object: 'list',
      items: [
        { event: 4, event_id: 'evt-4', type: 'card.linked', date_created: '2026-11-20T09:04:00.000Z', date_refused: expect.any(String), code: 'card_taken', message: 'Card C-7 belongs to another customer.' },
        { event: 2, event_id: 'evt-2', type: 'order.placed', date_created: '2026-11-20T09:02:00.000Z', date_refused: expect.any(String), code: 'table_not_accepted', message: 'Central does not take rows of that table from a store.' },
      ],
    });
    expect(Date.parse(reply.body.items[0].date_refused)).toBeGreaterThan(Date.UTC(2026, 0, 1));
  });

  it('takes a limit of 1 to 200, in decimal digits', async () => {
    const one = await rejected(`api_key=${encodeURIComponent(vendor.apiKey)}&limit=1`);
    expect(one.body.items.map((e: { event: number }) => e.event)).toEqual([4]);
    expectResourceError(await rejected(`api_key=${encodeURIComponent(vendor.apiKey)}&limit=0`), 400, 'validation_failed', 'limit');
    expectResourceError(await rejected(`api_key=${encodeURIComponent(vendor.apiKey)}&limit=201`), 400, 'validation_failed', 'limit');
    // Its query is an intersection of schemas (the key's and the limit's): numbers in it are checked as anywhere.
    expectResourceError(await rejected(`api_key=${encodeURIComponent(vendor.apiKey)}&limit=0x10`), 400, 'validation_failed', 'limit');
    expectResourceError(await rejected(`api_key=${encodeURIComponent(vendor.apiKey)}&limit=Infinity`), 400, 'validation_failed', 'limit');
  });

  it('needs a cashier’s key of the store', async () => {
    expectResourceError(await rejected(''), 401, 'missing_credentials');
    expectResourceError(await rejected(`api_key=${encodeURIComponent(vendor.kioskApiKey)}`), 403, 'forbidden');
    expectResourceError(await rejected('api_key=nope'), 401, 'invalid_api_key');
  });
});
