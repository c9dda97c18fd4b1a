import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { webhookAdmin } from '../../core/webhooks-admin/change-webhooks';
import { WEBHOOK_KINDS } from '../../core/webhooks/kinds';
import { PublicIdParams } from '../../shared/schemas/backoffice-screens';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import {
  BackOfficeDeliveriesQuery,
  BackOfficeDeliveriesSchema,
  BackOfficeReplayBody,
  BackOfficeWebhooksSchema,
  CreateWebhookBody,
  ReplayQueuedSchema,
  TestEventQueuedSchema,
  UpdateWebhookBody,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from '../../shared/schemas/webhooks';
import { requireStaff, staffOf } from '../auth/staff';
import { deliveryToWire, endpointToWire } from './webhooks-wire';

const tags = ['Back office'];
const config = { style: 'resource' as const };

/**
 * Webhook endpoints in the back office (owners and managers): list, add (the secret shown once),
 * edit (URL, events) and pause / enable, delete, rotate the secret, send a test event, the delivery log and a replay — the bearer
 * API's use cases, each change audited in its own transaction.
 */
export const backOfficeWebhookRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; allowPrivate: boolean }> = async (app, { engine, allowPrivate }) => {
  const managers = requireStaff(engine, 'webhooks.manage');
  const policy = { allowPrivate };

  app.get('/backoffice/webhooks', { config, preValidation: managers, schema: { tags, response: { 200: BackOfficeWebhooksSchema } } }, async (request) => ({
    items: (await webhookAdmin.list(engine, staffOf(request))).map(endpointToWire),
    kinds: [...WEBHOOK_KINDS],
  }));

  app.post('/backoffice/webhooks', { config, preValidation: managers, schema: { tags, body: CreateWebhookBody, response: { 201: WebhookEndpointWithSecretSchema } } }, async (request, reply) => {
    const { endpoint, secret } = await webhookAdmin.create(engine, staffOf(request), request.body, policy);
    return reply.code(201).send({ ...endpointToWire(endpoint), secret });
  });

  app.put('/backoffice/webhooks/:id', { config, preValidation: managers, schema: { tags, params: PublicIdParams, body: UpdateWebhookBody, response: { 200: WebhookEndpointSchema } } }, async (request) =>
    endpointToWire(await webhookAdmin.update(engine, staffOf(request), request.params.id, request.body, policy)),
  );

  // What the endpoint had not received (pending, sending) is cancelled; audited as webhook.delete.
  app.delete('/backoffice/webhooks/:id', { config, preValidation: managers, schema: { tags, params: PublicIdParams, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await webhookAdmin.delete(engine, staffOf(request), request.params.id);
    return {};
  });

  app.post('/backoffice/webhooks/:id/rotate-secret', { config, preValidation: managers, schema: { tags, params: PublicIdParams, response: { 200: WebhookEndpointWithSecretSchema } } }, async (request) => {
    const { endpoint, secret } = await webhookAdmin.rotateSecret(engine, staffOf(request), request.params.id);
    return { ...endpointToWire(endpoint), secret };
  });

  app.post('/backoffice/webhooks/:id/test', { config, preValidation: managers, schema: { tags, params: PublicIdParams, response: { 202: TestEventQueuedSchema } } }, async (request, reply) => {
    const { eventId, endpointStatus } = await webhookAdmin.sendTest(engine, staffOf(request), request.params.id);
    return reply.code(202).send({ event_id: eventId, endpoint_status: endpointStatus });
  });

  app.get(
    '/backoffice/webhooks/:id/deliveries',
    { config, preValidation: managers, schema: { tags, params: PublicIdParams, querystring: BackOfficeDeliveriesQuery, response: { 200: BackOfficeDeliveriesSchema } } },
    async (request) => {
      const page = await webhookAdmin.deliveries(engine, staffOf(request), request.params.id, { limit: request.query.limit ?? 20, page: request.query.page });
      return { items: page.items.map(deliveryToWire), page: page.page, has_more: page.hasMore };
    },
  );

  app.post(
    '/backoffice/webhooks/:id/replay',
    { config, preValidation: managers, schema: { tags, params: PublicIdParams, body: BackOfficeReplayBody, response: { 202: ReplayQueuedSchema } } },
    async (request, reply) => {
      const { queued, endpointStatus } = await webhookAdmin.replay(engine, staffOf(request), request.params.id, request.body.event_id);
      return reply.code(202).send({ queued, endpoint_status: endpointStatus });
    },
  );
};
