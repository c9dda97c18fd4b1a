import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CardRecord } from '../../core/cards/card';
import { createCard } from '../../core/cards/create-card';
import { deleteCard } from '../../core/cards/delete-card';
import { getCard } from '../../core/cards/get-card';
import { listCards } from '../../core/cards/list-cards';
import { updateCard } from '../../core/cards/update-card';
import type { Engine } from '../../core/engine';
import { type Card, CardSchema, CreateCardBody, UpdateCardBody } from '../../shared/schemas/cards';
import { EmptyObjectSchema, IdParamsSchema, ListQuerySchema, pageOf } from '../../shared/schemas/common';
import { toIso } from '../../shared/time';
import { requireBearer, vendorOf } from '../auth/bearer';
import { requireOnEveryRoute } from '../auth/credential';
import { pageLinks } from '../http/page-links';

const tags = ['Cards'];
const security = [{ bearer: [] }];

export function cardToWire(card: CardRecord): Card {
  return {
    id: card.publicId,
    number: card.number,
    pin: card.pin,
    data: card.data,
    date_created: toIso(card.createdAt),
    date_updated: toIso(card.updatedAt),
    status: card.status,
  };
}

export const cardRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  requireOnEveryRoute(app, requireBearer(engine));
  const config = { style: 'resource' as const };

  app.get('/cards', { config, schema: { tags, security, querystring: ListQuerySchema, response: { 200: pageOf(CardSchema) } } }, async (request) => {
    const page = await listCards(engine, vendorOf(request), request.query);
    return { items: page.items.map(cardToWire), ...pageLinks(request, page) };
  });

  app.get('/cards/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: CardSchema } } }, async (request) =>
    cardToWire(await getCard(engine, vendorOf(request), request.params.id)),
  );

  app.post('/cards', { config, schema: { tags, security, body: CreateCardBody, response: { 201: CardSchema } } }, async (request, reply) => {
    const card = await createCard(engine, vendorOf(request), request.body);
    return reply.code(201).send(cardToWire(card));
  });

  app.put('/cards/:id', { config, schema: { tags, security, params: IdParamsSchema, body: UpdateCardBody, response: { 200: CardSchema } } }, async (request) =>
    cardToWire(await updateCard(engine, vendorOf(request), request.params.id, request.body ?? {})),
  );

  app.delete('/cards/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await deleteCard(engine, vendorOf(request), request.params.id);
    return {};
  });
};
