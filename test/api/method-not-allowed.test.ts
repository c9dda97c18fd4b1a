import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A path the node serves, asked with a method it does not take, is 405 `method_not_allowed` in the
// path's own envelope with an Allow header; a path nobody serves stays 404; CORS preflights still work.
describe('405 method_not_allowed', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(() => node.close());

  it('answers a resource-style path in the resource envelope, with Allow', async () => {
    const list = await http(`${node.url}/cards`, { method: 'PATCH', body: {} });
    expect(list.status).toBe(405);
    expect(list.body).toEqual({ internal_code: null, message: expect.stringContaining('PATCH'), code: 'method_not_allowed' });
    expect(list.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(list.headers.get('content-type')).toBe('application/json; charset=utf-8');

    const one = await http(`${node.url}/cards/card_123?x=1`, { method: 'POST', body: {} });
    expect(one.status).toBe(405);
    expect(one.body.code).toBe('method_not_allowed');
    expect(one.headers.get('allow')).toBe('GET, HEAD, PUT, DELETE, OPTIONS');
  });

  it('answers a legacy path in the legacy envelope, .json suffix included', async () => {
    const reply = await http(`${node.url}/onscreen?api_key=abc`, { method: 'PUT', body: {} });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual({
      error: { code: 405, reference_id: expect.any(String), more_info: null, errors: [{ reason: 'method_not_allowed', message: expect.stringContaining('/onscreen') }] },
      object: 'error',
    });
    expect(reply.headers.get('allow')).toBe('GET, HEAD, POST, DELETE, OPTIONS');

    const suffixed = await http(`${node.url}/user/profile.json?session_key=x`, { method: 'DELETE' });
    expect(suffixed.status).toBe(405);
    expect(suffixed.body.error.errors[0].reason).toBe('method_not_allowed');
    expect(suffixed.headers.get('allow')).toBe('GET, HEAD, PUT, OPTIONS');
  });

  it('answers HEAD on a path that only takes POST with 405', async () => {
    const reply = await fetch(`${node.url}/user/register`, { method: 'HEAD' });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('keeps 404 route_not_found for paths nobody serves, whatever the method', async () => {
    for (const [method, path] of [
      ['GET', '/no/such/path'],
      ['POST', '/cards/a/b'],
      ['DELETE', '/user/no-such-thing'],
    ] as const) {
      const reply = await http(`${node.url}${path}`, { method });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.headers.get('allow'), `${method} ${path}`).toBeNull();
      expect(JSON.stringify(reply.body), `${method} ${path}`).toContain('route_not_found');
    }
  });

  it('still answers CORS preflights, and a 405 is readable from another origin', async () => {
    const preflight = await fetch(`${node.url}/cards`, {
      method: 'OPTIONS',
      headers: { origin: 'http://shop.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const bare = await fetch(`${node.url}/cards`, { method: 'OPTIONS' });
    expect(bare.status).toBe(204);

    const refused = await http(`${node.url}/cards`, { method: 'PATCH', body: {}, headers: { origin: 'http://shop.example' } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('lists the code in the error table of /openapi.json', async () => {
    expect(ERROR_CODES.method_not_allowed.status).toBe(405);
    const doc = await http(`${node.url}/openapi.json`);
    expect(doc.body.info.description).toContain(`| 405 | \`method_not_allowed\` | ${ERROR_CODES.method_not_allowed.message} |`);
  });
});
