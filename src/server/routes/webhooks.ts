import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../core/engine';
import { listDeliveries, replayEvents, sendTestEvent } from '../../core/webhooks/delivery-log';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from '../../core/webhooks/endpoints';
import { ServiceError } from '../../shared/errors';
import { EmptyObjectSchema, IdParamsSchema, pageOf } from '../../shared/schemas/common';
import {
  CreateWebhookBody,
  DeliveryListQuery,
  ReplayQueuedSchema,
  ReplayWebhookBody,
  TestEventQueuedSchema,
  UpdateWebhookBody,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from '../../shared/schemas/webhooks';
import { requireOnEveryRoute } from '../auth/credential';
import { requireBearer, vendorOf } from '../auth/bearer';
import { pageLinks } from '../http/page-links';
import { deliveryToWire, endpointToWire } from './webhooks-wire';

const tags = ['Webhooks'];
const security = [{ bearer: [] }];

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ServiceError('validation_failed', `${field} must be an ISO 8601 time.`, field);
  return ms;
}

export interface WebhookRouteOptions {
  engine: Engine;
  /** --webhooks-allow-private: http:// and internal addresses accepted as endpoint URLs. */
  allowPrivate: boolean;
}

/** /webhooks: a program's endpoints, their delivery log, replays and test events (the vendor's bearer). */
export const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, { engine, allowPrivate }) => {
  requireOnEveryRoute(app, requireBearer(engine));
  const config = { style: 'resource' as const };
  const policy = { allowPrivate };

  app.post('/webhooks', { config, schema: { tags, security, body: CreateWebhookBody, response: { 201: WebhookEndpointWithSecretSchema } } }, async (request, reply) => {
    const { endpoint, secret } = await createWebhookEndpoint(engine, vendorOf(request), request.body, policy);
    return reply.code(201).send({ ...endpointToWire(endpoint), secret });
  });

  app.get('/webhooks', { config, schema: { tags, security, response: { 200: Type.Object({ items: Type.Array(WebhookEndpointSchema) }) } } }, async (request) => ({
    items: (await listWebhookEndpoints(engine, vendorOf(request))).map(endpointToWire),
  }));

  app.get('/webhooks/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: WebhookEndpointSchema } } }, async (request) =>
    endpointToWire(await getWebhookEndpoint(engine, vendorOf(request), request.params.id)),
  );

  app.put(
    '/webhooks/:id',
    { config, schema: { tags, security, params: IdParamsSchema, body: UpdateWebhookBody, response: { 200: WebhookEndpointSchema } } },
    async (request) => endpointToWire(await updateWebhookEndpoint(engine, vendorOf(request), request.params.id, request.body ?? {}, policy)),
  );

  app.delete('/webhooks/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await deleteWebhookEndpoint(engine, vendorOf(request), request.params.id);
    return {};
  });

  app.post(
    '/webhooks/:id/rotate-secret',
    { config, schema: { tags, security, params: IdParamsSchema, response: { 200: WebhookEndpointWithSecretSchema } } },
    async (request) => {
      const { endpoint, secret } = await rotateWebhookSecret(engine, vendorOf(request), request.params.id);
      return { ...endpointToWire(endpoint), secret };
    },
  );

  app.post(
    '/webhooks/:id/test',
    { config, schema: { tags, security, params: IdParamsSchema, response: { 202: TestEventQueuedSchema } } },
    async (request, reply) => {
      const { eventId, endpointStatus } = await sendTestEvent(engine, vendorOf(request), request.params.id);
      return reply.code(202).send({ event_id: eventId, endpoint_status: endpointStatus });
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    { config, schema: { tags, security, params: IdParamsSchema, querystring: DeliveryListQuery, response: { 200: pageOf(WebhookDeliverySchema) } } },
    async (request) => {
      const page = await listDeliveries(engine, vendorOf(request), request.params.id, request.query);
      return { items: page.items.map(deliveryToWire), ...pageLinks(request, page) };
    },
  );

  app.post(
    '/webhooks/:id/replay',
    { config, schema: { tags, security, params: IdParamsSchema, body: ReplayWebhookBody, response: { 202: ReplayQueuedSchema } } },
    async (request, reply) => {
      const body = request.body ?? {};
      const result = await replayEvents(engine, vendorOf(request), request.params.id, {
        eventId: body.event_id,
        from: timeOf(body.from, 'from'),
        to: timeOf(body.to, 'to'),
      });
      return reply.code(202).send({ queued: result.queued, endpoint_status: result.endpointStatus });
    },
  );
};
