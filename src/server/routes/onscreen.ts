import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule, validatedField } from '../http/rate-limits';
import { Type } from 'typebox';
import type { Engine } from '../../core/engine';
import { checkInFromApp } from '../../core/onscreen/app-check-in';
import { checkIn } from '../../core/onscreen/check-in';
import { closeSession } from '../../core/onscreen/close-session';
import { listQueue } from '../../core/onscreen/queue';
import { registerInStore } from '../../core/onscreen/register-in-store';
import { retrieveCustomer } from '../../core/onscreen/retrieve-customer';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import {
  ApiKeyQuery,
  CheckInQuery,
  AppCheckInBody,
  CheckInBody,
  CheckInReplySchema,
  CloseBody,
  InStoreRegisterBody,
  QueueEntrySchema,
  RegisterReplySchema,
  RetrieveQuery,
  RetrieveReplySchema,
} from '../../shared/schemas/onscreen';
import { SessionQuery } from '../../shared/schemas/users';
import { requireApiKey, storeOf } from '../auth/api-key';
import { customerOf, requireSession } from '../auth/session';
import { checkInWire, posSessionWire, queueEntryWire, registerWire, retrieveWire } from './onscreen-wire';
import { autoReloadBillingProfile } from '../../core/payments/billing-profiles/billing-profile';

const tags = ['OnScreen'];
const config = { style: 'legacy' as const };

/** The OnScreen section: check-in, queue, retrieve customer, close, in-store register. */
export const onscreenRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const anyKey = requireApiKey(engine);
  // A card's pin tried at a kiosk or counter, per card as GET /card/balance counts it: a leaked kiosk
  // key tried 122 pins in 10 s and linked the card, value and all. Per client more loosely (a
  // counter links cards all day).
  const pinTries = rateLimited('onscreen-card-pin', rateRule(engine, { ...rateLimits.codeEntry, perClient: rateLimits.codeEntry.perClient * 6 }, validatedField('body', 'card_number')));
  const cardPinEntry = async (request: FastifyRequest<{ Body: { card_number?: string; card_pin?: string } }>, reply: FastifyReply) => {
    if (request.body.card_number !== undefined && request.body.card_pin !== undefined) await pinTries(request, reply);
  };
  // Closing someone's session is a counter's job, not a kiosk's.
  const counterKey = requireApiKey(engine, ['cashier', 'integration']);

  app.post('/onscreen', { config, preValidation: anyKey, schema: { tags, querystring: CheckInQuery, body: CheckInBody, response: { 201: CheckInReplySchema } } }, async (request, reply) => {
    const scope = storeOf(request);
    const result = await checkIn(engine, scope, { identification: request.body.card_number, screen: request.query.screen });
    return reply.code(201).send(checkInWire(result, scope));
  });

  app.get('/onscreen/queue', { config, preValidation: anyKey, schema: { tags, querystring: ApiKeyQuery, response: { 200: Type.Array(QueueEntrySchema) } } }, async (request) =>
    (await listQueue(engine, storeOf(request))).map(queueEntryWire),
  );

  app.get('/onscreen', { config, preValidation: anyKey, schema: { tags, querystring: RetrieveQuery, response: { 200: RetrieveReplySchema } } }, async (request) => {
    const customer = await retrieveCustomer(engine, storeOf(request), request.query.pos_session_hash);
    return retrieveWire(customer, await autoReloadBillingProfile(engine.db, customer.membership.link));
  });

  app.delete('/onscreen', { config, preValidation: counterKey, schema: { tags, querystring: ApiKeyQuery, body: CloseBody, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await closeSession(engine, storeOf(request), request.body.pos_session_hash);
    return {};
  });

  app.post(
    '/onscreen/register',
    { config, preValidation: anyKey, preHandler: cardPinEntry, schema: { tags, querystring: CheckInQuery, body: InStoreRegisterBody, response: { 201: RegisterReplySchema } } },
    async (request, reply) => {
      const scope = storeOf(request);
      const b = request.body;
      const result = await registerInStore(engine, scope, { phone: b.phone_number, email: b.email, firstName: b.first_name, lastName: b.last_name, cardNumber: b.card_number, cardPin: b.card_pin, passportNumber: b.passport_number, screen: request.query.screen });
      return reply.code(201).send(registerWire(result, scope));
    },
  );

  app.post(
    '/vendor/store/check-in',
    { config, preValidation: requireSession(engine), schema: { tags, querystring: SessionQuery, body: AppCheckInBody, response: { 201: Type.Object({ pos_session: CheckInReplySchema.properties.pos_session }) } } },
    async (request, reply) => {
      const session = await checkInFromApp(engine, customerOf(request), { storeId: request.body.store });
      return reply.code(201).send({ pos_session: posSessionWire(session) });
    },
  );
};
