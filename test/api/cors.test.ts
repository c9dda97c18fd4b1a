import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Browser clients (web shops, the desktop renderer loaded from file://, tablets) call the node from
// other origins with token credentials and no cookies.
describe('CORS', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(() => node.close());

  it('answers a preflight for an authenticated JSON call', async () => {
    const reply = await fetch(`${node.url}/currencies`, {
      method: 'OPTIONS',
      headers: { origin: 'http://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    expect(reply.headers.get('access-control-allow-methods')).toContain('POST');
    expect(reply.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('marks real replies, errors included, as readable from any origin', async () => {
    const { accessToken } = await node.addVendor();
    const ok = await http(`${node.url}/currencies`, { token: accessToken, headers: { origin: 'http://shop.example' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const denied = await http(`${node.url}/currencies`, { headers: { origin: 'http://shop.example' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
    // A 429's Retry-After is readable there too (screens say how long to wait).
    expect(denied.headers.get('access-control-expose-headers')).toBe('Retry-After');
  });
});
