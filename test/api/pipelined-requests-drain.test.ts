import { connect } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { drainRequestsOnClose } from '../../src/server/node/drain-requests';

// A client pipelines many requests and drops the connection without reading: the responses still
// queued behind the first get neither 'finish' nor 'close' from Node, and a stop's drain kept them
// as "under way" — holding their buffers for good and making every stop wait out its limit.

describe('requests pipelined on a connection that dies', () => {
  it('are let go with their connection: none is held as under way', async () => {
    const app = Fastify();
    const drain = drainRequestsOnClose(app, 3_000);
    app.get('/page', async () => ({ text: 'x'.repeat(14_000) }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /page HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(400));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(drain.underWay()).toBe(0);
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
