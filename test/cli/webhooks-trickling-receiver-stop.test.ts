import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { jsonLines, killLeftovers, launch, type Running, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard store` as a real process, delivering to a receiver that answers 200 and then keeps
// its body coming forever (a byte a second). Found by the tenth round's exploratory run: the node
// kept every such connection open, one more per delivery, and on SIGTERM it logged "stopped" and
// never exited — those sockets held the process. The node cuts an answer's body off at the
// delivery's 10 s timeout now, so a stop ends within that.

const dir = makeTempDir('punchcard-webhooks-trickle-');
let receiver: Server | undefined;
let requests = 0;

afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  dir.remove();
});

async function tricklingReceiver(): Promise<string> {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests += 1;
      response.writeHead(200, { 'content-type': 'text/plain' });
      const beat = setInterval(() => response.write('.'), 1_000);
      response.on('close', () => clearInterval(beat));
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
}

async function startStore(): Promise<{ running: Running; url: string }> {
  const running = launch(['store', '--data', dir.path, '--port', '0', '--webhooks-allow-private']);
  const url = await waitFor('the listening line', () => jsonLines(running.stdout()).find((l) => /listening on/.test(String(l.msg)))?.url as string | undefined, running, 30_000);
  return { running, url };
}

describe('a store node that delivered to a receiver whose answer never ends', () => {
  it('stops on SIGTERM within the delivery timeout', { timeout: 120_000 }, async () => {
    const hooks = await tricklingReceiver();
    const node = await startStore();
    const engine = await startEngine({ database: openSqlite(join(dir.path, 'punchcard.db')), nodeKey: randomBytes(32), role: 'store' });
    const vendor = await setUpVendor(engine, { name: 'Café Luna', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. 1', city: 'Quito' } });
    await engine.close();

    const created = await http(`${node.url}/webhooks`, { method: 'POST', token: vendor.accessToken, body: { url: hooks, events: ['customer.registered'] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const registered = await http(`${node.url}/user/register`, { method: 'POST', body: { vendor: vendor.vendorId, email_address: 'ana@example.com', password: 'correct horse 1', first_name: 'Ana', last_name: 'Ruiz', terms: true } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const deadline = Date.now() + 20_000;
    while (requests === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toBe(1);

    // The 200 was taken as delivered; the body still trickles when the node is told to stop.
    node.running.child.kill('SIGTERM');
    const exit = await Promise.race([node.running.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 25_000))]);
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
