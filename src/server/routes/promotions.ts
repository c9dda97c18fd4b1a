import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { awardPromotion } from '../../core/promotions/award-promotion';
import { createPromotion, listPromotions, updatePromotion } from '../../core/promotions/manage-promotions';
import { loadPromotion, type PromotionRecord } from '../../core/promotions/promotion';
import { IdParamsSchema, ListQuerySchema, pageOf } from '../../shared/schemas/common';
import { AwardPromotionBody, CreatePromotionBody, PromotionAwardSchema, PromotionSchema, UpdatePromotionBody } from '../../shared/schemas/promotions';
import { SessionQuery } from '../../shared/schemas/users';
import { toIso } from '../../shared/time';
import { requireBearer, vendorOf } from '../auth/bearer';
import { customerOf, requireSession } from '../auth/session';
import { pageLinks } from '../http/page-links';
import { amountWire, currencyRefWire } from './balances';

const tags = ['Promotions'];
const security = [{ bearer: [] }];
const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

function promotionWire(p: PromotionRecord) {
  return {
    id: p.publicId,
    code: p.code,
    name: p.name,
    description: p.description,
    points: p.points,
    currency: p.currencyPublicId,
    reward: p.rewardPublicId,
    starts_at: isoOrNull(p.startsAt),
    ends_at: isoOrNull(p.endsAt),
    total_cap: p.totalCap,
    per_customer_cap: p.perCustomerCap,
    awarded_count: p.awardedCount,
    status: p.status,
    date_created: toIso(p.createdAt),
    date_updated: toIso(p.updatedAt),
  };
}

/** Promotion codes: the program creates, lists and pauses them (bearer); customers enter one in the app (session_key). */
export const promotionRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const bearer = requireBearer(engine);
  const resource = { style: 'resource' as const };

  app.get('/promotions', { config: resource, preValidation: bearer, schema: { tags, security, querystring: ListQuerySchema, response: { 200: pageOf(PromotionSchema) } } }, async (request) => {
    const page = await listPromotions(engine, vendorOf(request), request.query);
    return { items: page.items.map(promotionWire), ...pageLinks(request, page) };
  });

  app.get('/promotions/:id', { config: resource, preValidation: bearer, schema: { tags, security, params: IdParamsSchema, response: { 200: PromotionSchema } } }, async (request) =>
    promotionWire(await loadPromotion(engine.db, vendorOf(request).vendorId, { publicId: request.params.id })),
  );

  app.post('/promotions', { config: resource, preValidation: bearer, schema: { tags, security, body: CreatePromotionBody, response: { 201: PromotionSchema } } }, async (request, reply) => {
    const b = request.body;
    const promotion = await createPromotion(engine, vendorOf(request), {
      code: b.code,
      name: b.name,
      description: b.description,
      points: b.points,
      currency: b.currency,
      reward: b.reward,
      startsAt: b.starts_at,
      endsAt: b.ends_at,
      totalCap: b.total_cap,
      perCustomerCap: b.per_customer_cap,
      status: b.status,
    });
    return reply.code(201).send(promotionWire(promotion));
  });

  app.put(
    '/promotions/:id',
    { config: resource, preValidation: bearer, schema: { tags, security, params: IdParamsSchema, body: UpdatePromotionBody, response: { 200: PromotionSchema } } },
    async (request) => {
      const b = request.body ?? {};
      return promotionWire(
        await updatePromotion(engine, vendorOf(request), request.params.id, {
          name: b.name,
          description: b.description,
          startsAt: b.starts_at,
          endsAt: b.ends_at,
          totalCap: b.total_cap,
          perCustomerCap: b.per_customer_cap,
          status: b.status,
        }),
      );
    },
  );

  app.post(
    '/vendor/promotion/award',
    { config: { style: 'legacy' as const }, preValidation: requireSession(engine), schema: { tags, querystring: SessionQuery, body: AwardPromotionBody, response: { 200: PromotionAwardSchema } } },
    async (request) => {
      const award = await awardPromotion(engine, customerOf(request), request.body.code);
      return {
        object: 'promotion_award' as const,
        promotion: { code: award.promotion.code, name: award.promotion.name, description: award.promotion.description },
        reward: award.reward && { id: award.reward.publicId, name: award.reward.name },
        amount: amountWire(award.points, award.currency),
        currency: currencyRefWire(award.currency),
        balance: amountWire(award.balance, award.currency),
        transaction_id: award.transactionId,
      };
    },
  );
};
