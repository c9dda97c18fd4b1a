import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { addOwner } from '../../src/core/staff/add-owner';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { type AppOptions, buildApp } from '../../src/server/app';
import { clientKey } from '../../src/server/http/client-address';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// What one client can hold of a node, over real sockets: a request that trickles in is cut off; one
// address holds a bounded number of connections; the addresses of one IPv6 /64 count as one client
// for every per-client rate limit.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function node(options: Partial<AppOptions> = {}): Promise<{ url: string; port: number }> {
  const dir = makeTempDir('punchcard-clients-');
  const engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), role: 'store' });
  const app = await buildApp({ engine, role: 'store', version: 'test', ...options });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(async () => {
    await app.close();
    await engine.close();
    dir.remove();
  });
  return { url, port: Number(new URL(url).port) };
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    cleanups.push(() => void socket.destroy());
  });
}

/** What the server sent before closing the socket, and how long that took. */
function untilClosed(socket: Socket): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return new Promise((resolve) => socket.on('close', () => resolve({ text, ms: Date.now() - started })));
}

describe('clients as limits count them', () => {
  it('an IPv4 address as it is; an IPv6 address by its /64, however written', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0DB8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('fd00:6f::28')).toBe('fd00:6f:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });

  it('a request that trickles in is answered 408 and closed once its time is up', async () => {
    const { port } = await node({ requestTimeoutMs: 500 });
    const socket = await openSocket(port);
    socket.write('POST /user/authenticate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const closed = untilClosed(socket);
    const drip = setInterval(() => socket.writable && socket.write(' '), 100);
    const { text, ms } = await closed;
    clearInterval(drip);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(5_000);
  });

  it('one address holds at most its share of connections; the others still get in', async () => {
    const { url, port } = await node({ maxConnectionsPerClient: 3 });
    const held = await Promise.all([openSocket(port), openSocket(port), openSocket(port)]);
    const extra = await openSocket(port);
    expect((await untilClosed(extra)).text).toBe('');
    held[0]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await http(`${url}/health`, { headers: { connection: 'close' } })).status).toBe(200);
  });

  it('the addresses of one IPv6 /64 share one per-client rate limit (behind a trusted proxy that names them)', async () => {
    const staffSignIn = { perClient: 3, perAccount: 100, windowSeconds: 900 };
    const { url } = await node({ trustProxy: { addresses: ['loopback'] }, rateLimits: { staffSignIn } });
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i += 1) {
      const reply = await http(`${url}/backoffice/sign-in`, { method: 'POST', headers: { 'x-forwarded-for': `fd00:6f::${i.toString(16)}` }, body: { email: `person${i}@example.com`, password: 'wrong password' } });
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Another /64 is another client.
    const elsewhere = await http(`${url}/backoffice/sign-in`, { method: 'POST', headers: { 'x-forwarded-for': 'fd00:70::1' }, body: { email: 'other@example.com', password: 'wrong password' } });
    expect(elsewhere.status).toBe(401);
  });
});

describe('lockouts after wrong passwords', () => {
  it('lock out the client that tried, not the account: the owner signs in from elsewhere', async () => {
    const dir = makeTempDir('punchcard-lockout-');
    const engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), role: 'store' });
    const app = await buildApp({ engine, role: 'store', version: 'test', trustProxy: { addresses: ['loopback'] } });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(async () => {
      await app.close();
      await engine.close();
      dir.remove();
    });
    const { vendorId } = await setUpVendor(engine, { name: 'Locked', currency: 'USD', country: 'US', store: { name: 'S', address1: 'A', city: 'C' } });
    await addOwner(engine, { vendorId, email: 'owner@locked.test', password: 'the owner password 1' });
    const signIn = (from: string, password: string) =>
      http(`${url}/backoffice/sign-in`, { method: 'POST', headers: { 'x-forwarded-for': from }, body: { email: 'owner@locked.test', password } });
    const attacker = '198.51.100.7';
    const statuses = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await signIn(attacker, `guess number ${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect((await signIn(attacker, 'the owner password 1')).status).toBe(429);
    expect((await signIn('203.0.113.20', 'the owner password 1')).status).toBe(200);
  });
});
