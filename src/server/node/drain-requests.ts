import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../shared/errors';

/** The longest a stop waits for requests under way (a push at central may take seconds). */
export const DRAIN_LIMIT_MS = 8_000;

/**
 * Makes the app's close wait for the requests under way before it cuts connections: the app closes
 * every connection on close (event streams never end by themselves), which used to cut requests
 * still reading the database, and the database was closed under them ("driver has already been
 * destroyed", logged as errors). A request arriving once the stop began is refused with 503
 * `service_unavailable` in the path's own envelope (the app is built with Fastify's own plain 503
 * off); this waits, up to `limitMs`, until every other request has answered. A request counts as
 * answered once its response headers are out: an event stream's are, from its first moment.
 */
export function drainRequestsOnClose(app: FastifyInstance, limitMs = DRAIN_LIMIT_MS): { underWay: () => number } {
  const underWay = new Set<ServerResponse>();
  let stopping = false;
  app.addHook('onRequest', (_request, _reply, done) => {
    done(stopping ? new ServiceError('service_unavailable', 'This node is stopping. Please try again in a moment.') : undefined);
  });
  // Responses queued behind a pipelined one on a socket that dies get neither 'finish' nor 'close'
  // (Node 20): kept here, they held their buffers for good (a client sending 400 requests without
  // reading them left hundreds of MB). The socket's own close lets them all go, one listener a socket.
  const bySocket = new WeakMap<Socket, Set<ServerResponse>>();
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    underWay.add(response);
    const socket = request.socket;
    let onSocket = bySocket.get(socket);
    if (!onSocket) {
      const responses = new Set<ServerResponse>();
      onSocket = responses;
      bySocket.set(socket, responses);
      socket.once('close', () => {
        for (const queued of responses) underWay.delete(queued);
        responses.clear();
      });
    }
    onSocket.add(response);
    const done = () => {
      underWay.delete(response);
      onSocket.delete(response);
    };
    response.once('finish', done);
    response.once('close', done);
  });
  app.addHook('preClose', async () => {
    stopping = true;
    const deadline = Date.now() + limitMs;
    while ([...underWay].some((response) => !response.headersSent) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  // How many responses it holds (a test sees them go).
  return { underWay: () => underWay.size };
}
