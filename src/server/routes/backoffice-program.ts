import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { programChanges } from '../../core/program-admin/change-program';
import { programOverview } from '../../core/program-admin/program-overview';
import { CurrencySchema, CreateCurrencyBody, UpdateCurrencyBody } from '../../shared/schemas/currencies';
import { AdminContentSchema, ContentSlugParams, OfflineCapsBody, OfflineCapsSchema, ProgramCountryBody, ProgramCountrySchema, ProgramLanguageBody, ProgramLanguageSchema, ProgramOverviewSchema, PublicIdParams } from '../../shared/schemas/backoffice-screens';
import { PutContentBody } from '../../shared/schemas/consumer';
import {
  CreateEarningRuleBody,
  CreateRewardBody,
  CreateTierBody,
  EarningRuleSchema,
  ProgramSettingsSchema,
  RewardSchema,
  TierSchema,
  UpdateEarningRuleBody,
  UpdateProgramSettingsBody,
  UpdateRewardBody,
  UpdateTierBody,
} from '../../shared/schemas/rules';
import { requireStaff, staffOf } from '../auth/staff';
import { currencyToWire } from './currencies';
import { earningRuleToWire, rewardToWire, settingsChanges, settingsToWire, tierToWire } from './rules';

const tags = ['Back office'];
const config = { style: 'resource' as const };

const capsToWire = (c: { quickPayPerOrder: number | null; quickPayPerDay: number | null; pointsPerOrder: number | null; pointsPerDay: number | null }) => ({
  quick_pay_per_order: c.quickPayPerOrder,
  quick_pay_per_day: c.quickPayPerDay,
  points_per_order: c.pointsPerOrder,
  points_per_day: c.pointsPerDay,
});
const contentToWire = (p: { slug: string; language: string; title: string; content: string; version: number }) => ({ slug: p.slug, language: p.language, title: p.title, content: p.content, version: p.version });

/**
 * The program in the back office: currencies, earning rules, rewards, tiers, points expiry,
 * offline caps and content pages, through the bearer API's own use cases (so the same checks and
 * messages), each change audited. Everyone reads; owners and managers change.
 */
export const backOfficeProgramRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; role: 'central' | 'store' }> = async (app, { engine, role }) => {
  const readers = requireStaff(engine, 'program.read');
  const writers = requireStaff(engine, 'program.write');

  app.get('/backoffice/program', { config, preValidation: readers, schema: { tags, response: { 200: ProgramOverviewSchema } } }, async (request) => {
    const p = await programOverview(engine, staffOf(request).vendorId, role);
    return {
      editable: p.editable,
      currencies: p.currencies.map(currencyToWire),
      quick_pay_currency: p.quickPayCurrency,
      country: p.country,
      language: p.language,
      earning_rules: p.earningRules.map(earningRuleToWire),
      rewards: p.rewards.map(rewardToWire),
      tiers: p.tiers.map(tierToWire),
      settings: settingsToWire(p.settings),
      offline_caps: { apply: p.offlineCaps.apply, ...capsToWire(p.offlineCaps) },
      content: p.content.map(contentToWire),
    };
  });

  app.post('/backoffice/program/currencies', { config, preValidation: writers, schema: { tags, body: CreateCurrencyBody, response: { 201: CurrencySchema } } }, async (request, reply) =>
    reply.code(201).send(currencyToWire(await programChanges.createCurrency(engine, staffOf(request), request.body))),
  );
  app.put('/backoffice/program/currencies/:id', { config, preValidation: writers, schema: { tags, params: PublicIdParams, body: UpdateCurrencyBody, response: { 200: CurrencySchema } } }, async (request) =>
    currencyToWire(await programChanges.updateCurrency(engine, staffOf(request), request.params.id, request.body)),
  );

  app.post('/backoffice/program/earning-rules', { config, preValidation: writers, schema: { tags, body: CreateEarningRuleBody, response: { 201: EarningRuleSchema } } }, async (request, reply) => {
    const b = request.body;
    const made = await programChanges.createEarningRule(engine, staffOf(request), {
      name: b.name,
      currency: b.currency,
      points: b.points,
      perAmount: b.per_amount,
      rounding: b.rounding,
      maxAward: b.max_award,
      startsAt: b.starts_at,
      endsAt: b.ends_at,
      status: b.status,
    });
    return reply.code(201).send(earningRuleToWire(made));
  });
  app.put('/backoffice/program/earning-rules/:id', { config, preValidation: writers, schema: { tags, params: PublicIdParams, body: UpdateEarningRuleBody, response: { 200: EarningRuleSchema } } }, async (request) => {
    const b = request.body;
    return earningRuleToWire(
      await programChanges.updateEarningRule(engine, staffOf(request), request.params.id, {
        name: b.name,
        currency: b.currency,
        points: b.points,
        perAmount: b.per_amount,
        rounding: b.rounding,
        maxAward: b.max_award,
        startsAt: b.starts_at,
        endsAt: b.ends_at,
        status: b.status,
      }),
    );
  });

  app.post('/backoffice/program/rewards', { config, preValidation: writers, schema: { tags, body: CreateRewardBody, response: { 201: RewardSchema } } }, async (request, reply) => {
    const b = request.body;
    const made = await programChanges.createReward(engine, staffOf(request), { name: b.name, summary: b.summary, description: b.description, cost: b.cost, currency: b.currency, startsAt: b.starts_at, endsAt: b.ends_at, status: b.status });
    return reply.code(201).send(rewardToWire(made));
  });
  app.put('/backoffice/program/rewards/:id', { config, preValidation: writers, schema: { tags, params: PublicIdParams, body: UpdateRewardBody, response: { 200: RewardSchema } } }, async (request) => {
    const b = request.body;
    return rewardToWire(
      await programChanges.updateReward(engine, staffOf(request), request.params.id, { name: b.name, summary: b.summary, description: b.description, cost: b.cost, currency: b.currency, startsAt: b.starts_at, endsAt: b.ends_at, status: b.status }),
    );
  });

  app.post('/backoffice/program/tiers', { config, preValidation: writers, schema: { tags, body: CreateTierBody, response: { 201: TierSchema } } }, async (request, reply) => {
    const b = request.body;
    const made = await programChanges.createTier(engine, staffOf(request), { name: b.name, summary: b.summary, description: b.description, threshold: b.threshold, windowDays: b.window_days });
    return reply.code(201).send(tierToWire(made));
  });
  app.put('/backoffice/program/tiers/:id', { config, preValidation: writers, schema: { tags, params: PublicIdParams, body: UpdateTierBody, response: { 200: TierSchema } } }, async (request) => {
    const b = request.body;
    return tierToWire(await programChanges.updateTier(engine, staffOf(request), request.params.id, { name: b.name, summary: b.summary, description: b.description, threshold: b.threshold, windowDays: b.window_days }));
  });

  app.put('/backoffice/program/settings', { config, preValidation: writers, schema: { tags, body: UpdateProgramSettingsBody, response: { 200: ProgramSettingsSchema } } }, async (request) =>
    settingsToWire(await programChanges.updateSettings(engine, staffOf(request), settingsChanges(request.body))),
  );

  app.put('/backoffice/program/country', { config, preValidation: writers, schema: { tags, body: ProgramCountryBody, response: { 200: ProgramCountrySchema } } }, async (request) => ({
    country: await programChanges.changeCountry(engine, staffOf(request), request.body.country),
  }));

  app.put('/backoffice/program/language', { config, preValidation: writers, schema: { tags, body: ProgramLanguageBody, response: { 200: ProgramLanguageSchema } } }, async (request) => ({
    language: await programChanges.changeLanguage(engine, staffOf(request), request.body.language),
  }));

  app.put('/backoffice/program/offline-caps', { config, preValidation: writers, schema: { tags, body: OfflineCapsBody, response: { 200: OfflineCapsSchema } } }, async (request) => {
    const b = request.body;
    const caps = await programChanges.updateOfflinePolicy(engine, staffOf(request), role, {
      quickPayPerOrder: b.quick_pay_per_order,
      quickPayPerDay: b.quick_pay_per_day,
      pointsPerOrder: b.points_per_order,
      pointsPerDay: b.points_per_day,
    });
    return { apply: 'set_here' as const, ...capsToWire(caps) };
  });

  app.put('/backoffice/program/content/:slug', { config, preValidation: writers, schema: { tags, params: ContentSlugParams, body: PutContentBody, response: { 200: AdminContentSchema } } }, async (request) =>
    contentToWire(await programChanges.setContent(engine, staffOf(request), { slug: request.params.slug, ...request.body })),
  );
};
