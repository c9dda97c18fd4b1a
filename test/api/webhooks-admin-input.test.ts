import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENDPOINTS_PER_PROGRAM } from '../../src/core/webhooks/endpoints';
import { WEBHOOK_KINDS } from '../../src/core/webhooks/kinds';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The webhook admin endpoints as an integrating developer meets them, learning only from the docs
// (README, the node's /docs page): what an unknown event kind's refusal tells them, where the
// kinds are listed, and how many endpoints a program may have. Found by the tenth round's
// exploratory run: the refusal said "GET /openapi.json lists them" and the OpenAPI document did
// not name a single kind; and a program could add endpoints without end, each one more delivery
// row written inside every sale.

let node: TestNode;
let vendor: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  vendor = await node.addVendor('Café Luna');
});
afterAll(async () => {
  await node?.close();
});

const api = (path: string, options: { method?: string; body?: unknown } = {}) => http(`${node.url}${path}`, { token: vendor.accessToken, ...options });
const endpointIds = async (): Promise<string[]> => (await api('/webhooks')).body.items.map((e: { id: string }) => e.id);

describe('an unknown event kind', () => {
  it('is refused with 400 validation_failed naming it and every kind there is, creating and changing nothing', async () => {
    const refused = await api('/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks', events: ['order.placed', 'order.created'] } });
    expect(refused.status).toBe(400);
    const error = refused.body;
    expect(error).toMatchObject({ code: 'validation_failed', field: 'events' });
    expect(error.message).toContain('order.created');
    for (const kind of WEBHOOK_KINDS) expect(error.message).toContain(kind);
    expect(error.message).not.toContain('openapi.json');
    expect(await endpointIds()).toEqual([]);

    const made = await api('/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks', events: ['order.placed'] } });
    expect(made.status).toBe(201);
    const update = await api(`/webhooks/${made.body.id}`, { method: 'PUT', body: { events: ['order.placed', 'orders.placed'] } });
    expect(update.status).toBe(400);
    expect(update.body.message).toContain('balance.updated');
    expect((await api(`/webhooks/${made.body.id}`)).body).toMatchObject({ events: ['order.placed'], date_updated: made.body.date_updated });
    expect((await api(`/webhooks/${made.body.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('the node’s OpenAPI document names every kind where a create and an update take them', async () => {
    const doc = await http(`${node.url}/openapi.json`);
    expect(doc.status).toBe(200);
    const events = (operation: any) => operation.requestBody.content['application/json'].schema.properties.events;
    for (const operation of [doc.body.paths['/webhooks'].post, doc.body.paths['/webhooks/{id}'].put]) {
      for (const kind of WEBHOOK_KINDS) expect(events(operation).description).toContain(kind);
    }
  });
});

describe('how many endpoints a program has', () => {
  it(`is at most ${MAX_ENDPOINTS_PER_PROGRAM}: one more is 409 webhook_endpoint_limit and nothing is made; a deleted one frees its place`, async () => {
    const v = await node.addVendor('Many Hooks');
    const as = (path: string, options: { method?: string; body?: unknown } = {}) => http(`${node.url}${path}`, { token: v.accessToken, ...options });
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_PROGRAM; i += 1) {
      const made = await as('/webhooks', { method: 'POST', body: { url: `http://127.0.0.1:9/hooks/${i}`, events: ['order.placed'] } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      ids.push(made.body.id);
    }
    const refused = await as('/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks/one-more', events: ['order.placed'] } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'webhook_endpoint_limit', message: expect.stringContaining(String(MAX_ENDPOINTS_PER_PROGRAM)) });
    expect((await as('/webhooks')).body.items).toHaveLength(MAX_ENDPOINTS_PER_PROGRAM);
    // Another program's count is its own.
    expect((await api('/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks/other', events: ['order.placed'] } })).status).toBe(201);

    expect((await as(`/webhooks/${ids[0]}`, { method: 'DELETE' })).status).toBe(200);
    expect((await as('/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks/again', events: ['order.placed'] } })).status).toBe(201);
  });
});
