import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../core/engine';
import { listRejectedEvents } from '../../core/sync/outbox/pending-events';
import { toIso } from '../../shared/time';
import { ApiKeyQuery } from '../../shared/schemas/onscreen';
import { requireApiKey } from '../auth/api-key';
import { NOT_PAIRED_STATUS, type StoreSync } from '../sync/store-sync';

const RejectedQuery = Type.Intersect([ApiKeyQuery, Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'How many, newest first (default 50)' })) })]);

const RejectedEventSchema = Type.Object({
  event: Type.Integer({ description: "The event's number on this node (node_seq)" }),
  event_id: Type.String(),
  type: Type.String({ description: 'What the event recorded, e.g. order.placed' }),
  date_created: Type.String({ format: 'date-time' }),
  date_refused: Type.String({ format: 'date-time' }),
  code: Type.Union([Type.String(), Type.Null()]),
  message: Type.Union([Type.String(), Type.Null()]),
});

/**
 * GET /sync/status on a store node: is it paired, is central reachable, what is waiting to be sent.
 * No credential, like /health: it names no customer, and the cashier's badge reads it.
 * GET /sync/rejected: the events central refused, with its reasons (a store key: the reasons may
 * name a receipt or a card).
 */
export const syncStatusRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; sync: StoreSync | null }> = async (app, { engine, sync }) => {
  app.get('/sync/status', { config: { style: 'resource' }, schema: { tags: ['Sync'] } }, async () => {
    return sync ? sync.status() : NOT_PAIRED_STATUS;
  });

  app.get(
    '/sync/rejected',
    {
      config: { style: 'resource' },
      preValidation: requireApiKey(engine, ['cashier']),
      schema: { tags: ['Sync'], querystring: RejectedQuery, response: { 200: Type.Object({ object: Type.Literal('list'), items: Type.Array(RejectedEventSchema) }) } },
    },
    async (request) => {
      const events = await listRejectedEvents(engine.db, request.query.limit ?? 50);
      return {
        object: 'list' as const,
        items: events.map((e) => ({ event: e.nodeSeq, event_id: e.eventId, type: e.type, date_created: toIso(e.createdAt), date_refused: toIso(e.refusedAt), code: e.code, message: e.message })),
      };
    },
  );
};
