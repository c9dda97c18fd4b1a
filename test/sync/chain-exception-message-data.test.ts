import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { buildApp } from '../../src/server/app';
import { ownerOf, staffCall } from '../support/backoffice';
import { ManualClock } from '../support/clock';
import { http, type TestNode } from '../support/test-node';
import { centralDatabases, pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// Central records what each exception's message says as data (sync_exceptions.message_data), beside
// the English text: the back office writes it in the screen's language. Three exceptions provoked by
// two nodes of one store selling offline; the HTTP API's message stays the English text.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

describe.each(centralDatabases((handle) => open.push(handle)))('sync exceptions record what they say ($name)', ({ database }) => {
  it('a reused receipt, a merged customer and an overdraft each keep their key and values beside the English message', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock, await database());
    open.push(central);
    const store = { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey };
    const a = await pairStoreBehindSwitch(central, clock, store);
    const b = await pairStoreBehindSwitch(central, clock, store);
    open.push(a, b);
    const sync = async () => {
      for (let round = 0; round < 2; round += 1) for (const node of [a, b]) await node.client.syncOnce();
    };
    const offline = async (...nodes: Array<StoreHandle & { link: Switch }>) => {
      for (const node of nodes) {
        node.link.down = true;
        await node.client.syncOnce().catch(() => undefined);
      }
    };

    const currency = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', central.vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
    const reward = await createSpendingRule(central.engine, { vendorId: central.vendor.vendorId }, { name: 'Tea', cost: 8, currency: currency.public_id });
    await registerInStore(a.engine, await a.scope(), { email: 'carla@example.com', firstName: 'Carla' });
    await placeOrder(a.engine, await a.scope(), { identification: 'carla@example.com', receiptNumber: 'A-1', subtotal: 10 });
    await registerInStore(a.engine, await a.scope(), { email: 'bo@example.com' });
    await sync();

    await offline(a, b);
    // Both nodes hand out receipt R-9 (to Bo); both believe Carla has 10 points and spend 8.
    await placeOrder(a.engine, await a.scope(), { identification: 'bo@example.com', receiptNumber: 'R-9', subtotal: 5 });
    await placeOrder(b.engine, await b.scope(), { identification: 'bo@example.com', receiptNumber: 'R-9', subtotal: 6 });
    await placeOrder(a.engine, await a.scope(), { identification: 'carla@example.com', receiptNumber: 'A-2', subtotal: 0, redemptions: [reward.publicId] });
    await placeOrder(b.engine, await b.scope(), { identification: 'carla@example.com', receiptNumber: 'B-2', subtotal: 0, redemptions: [reward.publicId] });
    // Ana registers at both (a's registration reaches central first: b's is merged into it).
    const ana = await registerInStore(a.engine, await a.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await registerInStore(b.engine, await b.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    a.link.down = false;
    b.link.down = false;
    await sync();

    const rows = await central.engine.db.selectFrom('sync_exceptions').select(['kind', 'message', 'message_data']).orderBy('id').execute();
    const byKind = new Map(rows.map((r) => [r.kind, { message: r.message, data: r.message_data === null ? null : JSON.parse(r.message_data) }]));
    const anaId = Number(ana.session.user_id);
    const [first, renamed] = await central.engine.db.selectFrom('orders').select(['id', 'receipt_number']).where('receipt_number', 'like', 'R-9%').orderBy('receipt_number').execute();
    expect(renamed!.receipt_number).toBe(`R-9~${b.engine.nodeId}`);
    expect(byKind.get('receipt_reused')).toEqual({
      message: `receipt R-9 was already used by order ${first!.id}; kept as ${renamed!.receipt_number}`,
      data: { key: 'receipt_reused', params: { receipt: 'R-9', order: Number(first!.id), renamed: renamed!.receipt_number } },
    });
    expect(byKind.get('offline_overdraft')).toEqual({
      message: 'Points spent before the nodes heard of each other left a balance of -6 Points (the store believed 10 Points was available); settled from the next credits',
      data: { key: 'offline_overdraft', params: { currency: 'Points', code: null, balance: -6, believed: 10, paid_back: null } },
    });

    const merged = byKind.get('customer_merged');
    expect(merged).toEqual({
      message: `registered offline with the email address of customer ${anaId}; merged into them (one customer now, with the points and visits of both)`,
      data: { key: 'customer_merged', params: { contact: 'email', customer: anaId } },
    });
    // Every exception recorded carries its data.
    expect(rows.map((r) => r.kind).sort()).toEqual(['customer_merged', 'offline_overdraft', 'receipt_reused']);

    // Over HTTP: the chain page's reply has the data; the sync API's message stays the English text, without it.
    const app: FastifyInstance = await buildApp({ engine: central.engine, role: 'central', version: 'test' });
    open.push(app);
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const owner = await ownerOf({ url, engine: central.engine } as TestNode, central.vendor.vendorId);
    const chain = await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/chain');
    expect(chain.status, JSON.stringify(chain.body)).toBe(200);
    const reused = chain.body.exceptions.find((e: { kind: string }) => e.kind === 'receipt_reused');
    expect(reused.message_data).toEqual(byKind.get('receipt_reused')!.data);
    const api = await http(`${url}/sync/exceptions`, { token: central.vendor.accessToken });
    expect(api.status, JSON.stringify(api.body)).toBe(200);
    const viaApi = api.body.items.find((e: { kind: string }) => e.kind === 'receipt_reused');
    expect(viaApi.message).toBe(byKind.get('receipt_reused')!.message);
    expect(viaApi).not.toHaveProperty('message_data');
  });
});
