import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { cardBalance } from '../../core/balances/card-balance';
import type { Engine } from '../../core/engine';
import { addUserCard } from '../../core/user-cards/add-user-card';
import { listUserCards } from '../../core/user-cards/list-user-cards';
import { removeUserCard } from '../../core/user-cards/remove-user-card';
import type { UserCardRecord } from '../../core/user-cards/user-card';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { AddUserCardBody, CardBalanceQuery, CardBalanceSchema, RemoveUserCardBody, ThirdPartyCardListSchema, UserCardListSchema, UserCardSchema } from '../../shared/schemas/consumer';
import { SessionQuery } from '../../shared/schemas/users';
import { toUnixSeconds } from '../../shared/time';
import { customerOf, requireSession } from '../auth/session';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule, validatedField } from '../http/rate-limits';
import { amountWire, currencyRefWire } from './balances';

const tags = ['Cards (customer)'];
const config = { style: 'legacy' as const };

function userCardWire(link: UserCardRecord) {
  return {
    id: link.id,
    object: 'user_card' as const,
    created: toUnixSeconds(link.createdAt),
    updated: toUnixSeconds(link.updatedAt),
    status: link.status,
    card: { number: link.card.number, pin: link.card.pin, status: link.card.status },
  };
}

/**
 * Cards as customers see them: the cards linked to their account, linking one with its number and
 * pin, unlinking, and the balance of an unlinked (gift) card. Every call that takes a pin shares
 * one limiter (the codeEntry limits) per client IP and per card number, so guessing a pin through
 * both endpoints counts once.
 */
export const userCardRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const session = requireSession(engine);
  // Run as preHandler on the number the route reads (validatedField): the body's on POST, the query's on GET.
  const numberInBody = validatedField('body', 'number');
  const numberInQuery = validatedField('query', 'number');
  const cardNumberOf = (request: FastifyRequest) => (request.method === 'POST' ? numberInBody : numberInQuery)(request);
  const pinEntry = rateLimited('card-pin', rateRule(engine, rateLimits.codeEntry, cardNumberOf));

  app.get('/user/card/list', { config, preValidation: session, schema: { tags, querystring: SessionQuery, response: { 200: UserCardListSchema } } }, async (request) => {
    const links = await listUserCards(engine, customerOf(request));
    return { object: 'collection' as const, count: links.length, data: links.map(userCardWire), next_page_url: null };
  });

  app.post(
    '/user/card/add',
    { config, preValidation: session, preHandler: pinEntry, schema: { tags, querystring: SessionQuery, body: AddUserCardBody, response: { 200: UserCardSchema } } },
    async (request) => userCardWire(await addUserCard(engine, customerOf(request), { number: request.body.number, pin: request.body.pin })),
  );

  app.delete(
    '/user/card',
    { config, preValidation: session, schema: { tags, querystring: SessionQuery, body: RemoveUserCardBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      const { user_card: link } = request.body;
      await removeUserCard(engine, customerOf(request), typeof link === 'number' ? link : link.id);
      return {};
    },
  );

  // Apps list third-party cards next to the program's own; Punchcard links none yet (docs/decisions.md).
  app.get('/user/card-3rdparty/list', { config, preValidation: session, schema: { tags, querystring: SessionQuery, response: { 200: ThirdPartyCardListSchema } } }, async () => ({
    object: 'collection' as const,
    count: 0,
    data: [],
    next_page_url: null,
  }));

  app.get('/card/balance', { config, preHandler: pinEntry, schema: { tags, querystring: CardBalanceQuery, response: { 200: CardBalanceSchema } } }, async (request) => {
    const { number, pin, vendor } = request.query;
    const card = await cardBalance(engine, { vendorId: vendor, number, pin });
    return {
      object: 'card_balance' as const,
      number: card.number,
      status: card.status,
      balances: card.balances.map((b) => ({ currency: currencyRefWire(b.currency), amount: amountWire(b.balance, b.currency) })),
    };
  });
};
