import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../shared/errors';

/**
 * Two refusals Node makes by itself, with an empty body and no log line, are made here instead,
 * in the node's envelope (and logged like any reply):
 * - an HTTP/1.1 request without Host, or any with more than one: 400 `host_required` (RFC 9112
 *   §3.2 asks for the 400; Node refuses the first itself, and takes the first of several).
 *   The server is built with `requireHostHeader: false` (app.ts) so the request reaches Fastify;
 *   HTTP/1.0 needs no Host and is served as before (request-origin.ts falls back to the address).
 * - an `Expect` other than 100-continue: 417 `expectation_failed`. Node hands such a request to a
 *   'checkExpectation' listener when there is one; it is passed on as a request, marked here.
 *   `Expect: 100-continue` never gets here: Node answers 100 Continue and serves it as before.
 * Both close the connection: a body the client may send after them is never read.
 */
export function registerRequestPreconditions(app: FastifyInstance): void {
  const unmetExpectations = new WeakSet<IncomingMessage>();
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    unmetExpectations.add(request);
    app.server.emit('request', request, response);
  });
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const refusal = unmetExpectations.has(raw)
      ? new ServiceError('expectation_failed', `This node cannot meet "Expect: ${clip(raw.headers.expect ?? '')}": it meets only Expect: 100-continue.`)
      : raw.httpVersion === '1.1' && raw.headers.host === undefined
        ? new ServiceError('host_required')
        : hostHeaders(raw.rawHeaders) > 1
          ? new ServiceError('host_required', 'A request must name the host it is for in one Host header, not several.')
          : null;
    if (!refusal) return done();
    reply.header('connection', 'close');
    done(refusal);
  });
}

/**
 * How many Host headers came (Node keeps the first and drops the rest, and RFC 9112 §3.2 asks for a
 * 400: proxies before the node may have read another one). A pass over the raw names, no copies.
 */
function hostHeaders(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/** The header as it came, cut short (it is echoed back in the message). */
function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
