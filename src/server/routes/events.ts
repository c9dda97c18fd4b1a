import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import type { StoreEvent } from '../../core/events/store-events';
import { ApiKeyQuery } from '../../shared/schemas/onscreen';
import { requireApiKey, storeOf } from '../auth/api-key';
import { watchApiKeyRevocation } from '../auth/api-key-revocation';

/** Keeps idle connections (and proxies in between) from timing out. */
const HEARTBEAT_MS = 15_000;

/**
 * GET /app/events?api_key: Server-Sent Events of the key's store — sessions opened, updated and
 * closed, orders completed and voided, scans the node's scanners could not check in, a paired store's
 * sync status changing (sync.changed) — so the cashier
 * queue and kiosk update without polling. Each event is `event: <type>` with JSON data `{type,
 * vendor_id, store_id, pos_session_id, order_id?, by?, station?, screen?, reason?, at}` (Unix ms).
 */
export const eventRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get('/app/events', { config: { style: 'legacy' }, preValidation: requireApiKey(engine), schema: { tags: ['Events'], querystring: ApiKeyQuery } }, (request, reply) => {
    const scope = storeOf(request);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'access-control-allow-origin': '*',
      'x-accel-buffering': 'no',
      // A hijacked reply skips the onSend hooks (http/security-headers.ts): set here what they would.
      'x-content-type-options': 'nosniff',
    });
    res.write(`retry: 3000\n: connected to store ${scope.storeId}\n\n`);
    const send = (event: StoreEvent) => {
      const data = {
        type: event.type,
        vendor_id: event.vendorId,
        store_id: event.storeId,
        pos_session_id: event.sessionId,
        ...(event.orderId !== undefined ? { order_id: event.orderId } : {}),
        ...(event.by !== undefined ? { by: event.by } : {}),
        ...(event.station !== undefined ? { station: event.station } : {}),
        ...(event.screen !== undefined ? { screen: event.screen } : {}),
        ...(event.reason !== undefined ? { reason: event.reason } : {}),
        at: event.at,
      };
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const unsubscribe = engine.events.subscribe(scope.storeId, send);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const stop = () => {
      clearInterval(heartbeat);
      unsubscribe();
      stopWatching();
    };
    // A key revoked while its stream is open is cut off (its reconnection then hears invalid_api_key).
    const stopWatching = watchApiKeyRevocation(engine, scope.apiKeyId, () => {
      stop();
      res.end();
    });
    request.raw.on('close', stop);
    res.on('error', stop);
  });
};
