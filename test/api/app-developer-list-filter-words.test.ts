import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilters } from '../../src/core/listing/list-plan';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A filter the list does not know, as a developer reads the refusal (twelfth round's app
// developer): the webhook delivery log took no filter keys, and asking it for the failed
// deliveries (`query=s:failed`, as /cards and /currencies filter by status) answered
// "Unknown filter key "s"; use ." — a sentence with nothing in it to use. The log now filters by
// `s:`; a list without keys says it takes none.

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

describe('an unknown filter key', () => {
  it('on a list that takes no filters says so (invalid_query)', () => {
    expect(() => parseFilters('s:failed', [])).toThrow('Unknown filter key "s"; this list takes no filters.');
  });

  it('on the webhook delivery log names its status key (400 invalid_query)', async () => {
    const endpoint = await api('/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks', events: ['order.placed'] } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const refused = await api(`/webhooks/${endpoint.body.id}/deliveries?query=${encodeURIComponent('x:failed')}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_query', field: 'query' });
    expect(refused.body.message).toBe('Unknown filter key "x"; use s:.');
  });

  it('on a list with filters names the keys to use, as before', async () => {
    const refused = await api(`/cards?query=${encodeURIComponent('x:1')}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_query', field: 'query' });
    expect(refused.body.message).toBe('Unknown filter key "x"; use n: or s:.');
  });
});
