import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Links the node builds (a list's next/prev, /countries' flag_url) start with the Host the client
// sent when it is a valid host[:port]; a missing, empty or malformed one (HTTP/1.0 without Host,
// `Host:`, a port over 65535, `a<b`, `[zz]`) falls back to the address the request reached, so
// the links stay absolute and usable. Those built `new URL` from garbage: a 500. Raw sockets,
// since fetch sends none of these.

let node: TestNode;
let token: string;
let port: number;

beforeAll(async () => {
  node = await startTestNode();
  const vendor = await node.addVendor('Host Coffee');
  token = vendor.accessToken;
  port = Number(new URL(node.url).port);
  // Two currencies at least (the vendor has its own), so a list of one has a next page.
  await http(`${node.url}/currencies`, { method: 'POST', token, body: { name: 'Host Gems' } });
});

afterAll(async () => {
  await node?.close();
});

/** Sends `head` (request line and headers, without the blank line) as is; the status and JSON body. */
function rawRequest(head: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [statusLine = '', ...rest] = text.split('\r\n\r\n')[0]!.split('\r\n');
      void rest;
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      resolve({ status: Number(statusLine.split(' ')[1]), body: body ? JSON.parse(body) : undefined });
    });
  });
}

const list = (version: '1.0' | '1.1', host: string | null) =>
  rawRequest(`GET /currencies?limit=1 HTTP/${version}\r\n${host === null ? '' : `Host: ${host}\r\n`}Authorization: Bearer ${token}`);

describe('links without a usable Host', () => {
  it.each([
    ['HTTP/1.0 without Host', '1.0', null],
    ['an empty Host', '1.1', ''],
    ['a port over 65535', '1.1', 'evil.com:99999'],
    ['a character no host has', '1.1', 'a<b'],
    ['brackets around no IPv6 address', '1.1', '[zz]'],
    ['a bad percent sign', '1.1', 'a%b'],
    ['an IPv4 address out of range', '1.1', '1.2.3.999'],
  ] as const)('%s: 200, the next link on the address the request reached', async (_name, version, host) => {
    const reply = await list(version, host);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.next).toBe(`http://127.0.0.1:${port}/currencies?limit=1&page=2`);
  });

  it.each([
    ['a name and port', 'shop.example:8080'],
    ['a bare name', 'localhost'],
    ['an IPv6 address', '[::1]:8080'],
  ])('%s is kept as sent', async (_name, host) => {
    const reply = await list('1.1', host);
    expect(reply.status).toBe(200);
    expect(reply.body.next).toBe(`http://${host}/currencies?limit=1&page=2`);
  });

  it('/countries: flag links on the reached address, not on the garbage', async () => {
    for (const host of ['a<b', 'evil.com:99999']) {
      const reply = await rawRequest(`GET /countries HTTP/1.1\r\nHost: ${host}`);
      expect(reply.status).toBe(200);
      expect(reply.body.length).toBeGreaterThan(0);
      for (const country of reply.body) expect(country.flag_url).toBe(`http://127.0.0.1:${port}/flags/${country.code}.svg`);
    }
    const plain = await rawRequest('GET /countries HTTP/1.0');
    expect(plain.body[0].flag_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/flags/`));
  });
});
