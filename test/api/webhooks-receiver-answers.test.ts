import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/core/webhooks/http-sender';

// How the node's webhook client treats a receiver's answer once it has its status: a receiver that
// answers 200 and then keeps its body coming (a byte a second, forever) must not keep a socket of
// the node open for as long as it likes — one more with every delivery (found by the tenth round's
// exploratory run: after a minute the node still held the first delivery's connection).

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A receiver answering 200 at once and then writing a byte every 50 ms without ever ending. */
async function tricklingReceiver(): Promise<{ url: string; sockets: Socket[]; closed: () => number }> {
  const sockets: Socket[] = [];
  let closed = 0;
  const writers = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      sockets.push(request.socket);
      request.socket.on('close', () => (closed += 1));
      response.writeHead(200, { 'content-type': 'text/plain' });
      writers.add(response);
      const beat = setInterval(() => response.write('.'), 50);
      response.on('close', () => clearInterval(beat));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, sockets, closed: () => closed };
}

const post = (url: string, timeoutMs: number) =>
  postWebhook({ url, body: '{"id":"evt_x"}', headers: { 'content-type': 'application/json' }, timeoutMs, allowPrivate: true });

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a receiver’s answer', () => {
  it('is a success on its 2xx status, and a body that never ends is cut off at the timeout', async () => {
    const receiver = await tricklingReceiver();
    expect(await post(receiver.url, 800)).toEqual({ status: 200 });
    expect(receiver.sockets).toHaveLength(1);
    // The node closes the connection by the end of the exchange's time (800 ms), not whenever the receiver stops.
    await until('the node to close the trickling connection', () => receiver.closed() === 1, 3_000);
  });

  it('leaves no connection behind after many deliveries to such a receiver', async () => {
    const receiver = await tricklingReceiver();
    // 1 s each: the whole exchange must fit in it, and 300 ms missed the status line on a busy CI machine.
    for (let i = 0; i < 5; i += 1) expect((await post(receiver.url, 1_000)).status).toBe(200);
    await until('every connection to close', () => receiver.closed() === 5, 3_000);
  });
});
