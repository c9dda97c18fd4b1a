import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../src/server/http/security-headers';
import { makeTempDir } from '../support/temp-dir';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Every page the node serves (the screens at / and /admin, the join page, the API docs) carries a
// CSP that refuses framing and foreign scripts, X-Frame-Options, a Referrer-Policy and nosniff; the
// API's JSON (errors included) and static files carry nosniff; CORS answers as before.
// test/e2e/screens-csp.test.ts proves the real screens work under the CSP in Chromium.
describe('security headers', () => {
  let node: TestNode;
  const renderer = makeTempDir();
  beforeAll(async () => {
    mkdirSync(join(renderer.path, 'assets'));
    writeFileSync(join(renderer.path, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>');
    writeFileSync(join(renderer.path, 'assets', 'app.js'), 'document.title = "screens";');
    node = await startTestNode({ rendererDir: renderer.path });
  });
  afterAll(async () => {
    await node.close();
    renderer.remove();
  });

  function expectPageHeaders(headers: Headers, what: string) {
    expect(headers.get('content-type'), what).toMatch(/^text\/html/);
    expect(headers.get('content-security-policy'), what).toBe(PAGE_CSP);
    expect(headers.get('x-frame-options'), what).toBe('DENY');
    expect(headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(headers.get('referrer-policy'), what).toBe('same-origin');
  }

  it('puts the CSP and the framing headers on every HTML page', async () => {
    for (const path of ['/', '/index.html', '/admin', '/admin/', '/join?code=nope', '/docs']) {
      const reply = await fetch(`${node.url}${path}`);
      await reply.arrayBuffer();
      expect([200, 404], path).toContain(reply.status);
      expectPageHeaders(reply.headers, path);
    }
  });

  it("the CSP allows only the node's own scripts and refuses every framing", () => {
    const directives = new Map(PAGE_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
  });

  it('marks JSON replies, errors and static files nosniff, without page headers', async () => {
    const { accessToken } = await node.addVendor();
    const replies = [
      await http(`${node.url}/health`),
      await http(`${node.url}/currencies`, { token: accessToken }),
      await http(`${node.url}/currencies`),
      await http(`${node.url}/no/such/path`),
      await http(`${node.url}/onscreen/no-such-thing`, { method: 'POST', body: {} }),
    ];
    for (const reply of replies) {
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      expect(reply.headers.get('content-security-policy')).toBeNull();
    }
    const script = await fetch(`${node.url}/assets/app.js`);
    expect(await script.text()).toContain('screens');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('marks the event stream and replies to unreadable requests nosniff too (they skip the hooks)', async () => {
    const { apiKey } = await node.addVendor();
    const abort = new AbortController();
    const stream = await fetch(`${node.url}/app/events?api_key=${apiKey}`, { signal: abort.signal });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
    abort.abort();
    // A request line Node's parser refuses: answered on the socket before Fastify sees it.
    const { port } = new URL(node.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /v2/currencies HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
  });

  it('keeps CORS as it was: preflights and replies readable from any origin', async () => {
    const preflight = await fetch(`${node.url}/currencies`, {
      method: 'OPTIONS',
      headers: { origin: 'http://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const denied = await http(`${node.url}/currencies`, { headers: { origin: 'http://shop.example' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
    expect(denied.headers.get('access-control-expose-headers')).toBe('Retry-After');
    expect(denied.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
