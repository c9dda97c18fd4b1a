import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Engine } from '../../core/engine';
import { createEarningRule } from '../../core/rules/earning/create-earning-rule';
import { deleteEarningRule } from '../../core/rules/earning/delete-earning-rule';
import type { EarningRuleRecord } from '../../core/rules/earning/earning-rule';
import { getEarningRule } from '../../core/rules/earning/get-earning-rule';
import { listEarningRules } from '../../core/rules/earning/list-earning-rules';
import { type EarningRuleChanges, updateEarningRule } from '../../core/rules/earning/update-earning-rule';
import { getProgramSettings } from '../../core/rules/settings/get-program-settings';
import type { ProgramSettingsRecord } from '../../core/rules/settings/program-settings';
import { type ProgramSettingsChanges, updateProgramSettings } from '../../core/rules/settings/update-program-settings';
import { createSpendingRule } from '../../core/rules/spending/create-spending-rule';
import { deleteSpendingRule } from '../../core/rules/spending/delete-spending-rule';
import { getSpendingRule } from '../../core/rules/spending/get-spending-rule';
import { listSpendingRules } from '../../core/rules/spending/list-spending-rules';
import type { SpendingRuleRecord } from '../../core/rules/spending/spending-rule';
import { type SpendingRuleChanges, updateSpendingRule } from '../../core/rules/spending/update-spending-rule';
import { createTier } from '../../core/rules/tiers/create-tier';
import { deleteTier } from '../../core/rules/tiers/delete-tier';
import { getTier } from '../../core/rules/tiers/get-tier';
import { listTiers } from '../../core/rules/tiers/list-tiers';
import type { TierRecord } from '../../core/rules/tiers/tier';
import { type TierChanges, updateTier } from '../../core/rules/tiers/update-tier';
import { toMajorUnits } from '../../shared/money';
import { EmptyObjectSchema, IdParamsSchema, ListQuerySchema, pageOf } from '../../shared/schemas/common';
import {
  CreateEarningRuleBody,
  CreateRewardBody,
  CreateTierBody,
  type EarningRule,
  EarningRuleSchema,
  type ProgramSettings,
  ProgramSettingsSchema,
  type Reward,
  RewardSchema,
  type Tier,
  TierSchema,
  UpdateEarningRuleBody,
  UpdateProgramSettingsBody,
  UpdateRewardBody,
  UpdateTierBody,
} from '../../shared/schemas/rules';
import { toIso } from '../../shared/time';
import { requireBearer, vendorOf } from '../auth/bearer';
import { requireOnEveryRoute } from '../auth/credential';
import { pageLinks } from '../http/page-links';

// The program rules a vendor manages, resource style: earning rules, rewards (spending rules),
// tiers and the program settings (points expiry).

const security = [{ bearer: [] }];
const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

export function earningRuleToWire(rule: EarningRuleRecord): EarningRule {
  return {
    id: rule.publicId,
    name: rule.name,
    currency: rule.currencyPublicId,
    points: rule.points,
    per_amount: toMajorUnits(rule.perAmount, rule.moneyDigits),
    rounding: rule.rounding,
    max_award: rule.maxAward,
    starts_at: isoOrNull(rule.startsAt),
    ends_at: isoOrNull(rule.endsAt),
    date_created: toIso(rule.createdAt),
    date_updated: toIso(rule.updatedAt),
    status: rule.status,
  };
}

export function rewardToWire(reward: SpendingRuleRecord): Reward {
  return {
    id: reward.publicId,
    name: reward.name,
    summary: reward.summary,
    description: reward.description,
    cost: reward.cost,
    currency: reward.currencyPublicId,
    starts_at: isoOrNull(reward.startsAt),
    ends_at: isoOrNull(reward.endsAt),
    date_created: toIso(reward.createdAt),
    date_updated: toIso(reward.updatedAt),
    status: reward.status,
  };
}

export function tierToWire(tier: TierRecord): Tier {
  return {
    id: tier.publicId,
    name: tier.name,
    summary: tier.summary,
    description: tier.description,
    threshold: tier.threshold,
    window_days: tier.windowDays,
    date_created: toIso(tier.createdAt),
    date_updated: toIso(tier.updatedAt),
  };
}

export function settingsToWire(settings: ProgramSettingsRecord): ProgramSettings {
  return {
    points_expiry_days: settings.pointsExpiryDays,
    referral_points: settings.referralPoints,
    egift_max_amount: settings.egiftMaxAmount,
    reload_max_amount: settings.reloadMaxAmount,
    egift_max_amount_default: settings.egiftMaxAmountDefault,
    reload_max_amount_default: settings.reloadMaxAmountDefault,
    tier_currency: settings.tierCurrency,
  };
}

/** The wire fields of a settings body as use-case input (absent stays absent). */
export function settingsChanges(body: Static<typeof UpdateProgramSettingsBody> | undefined): ProgramSettingsChanges {
  const b = body ?? {};
  return { pointsExpiryDays: b.points_expiry_days, referralPoints: b.referral_points, egiftMaxAmount: b.egift_max_amount, reloadMaxAmount: b.reload_max_amount, tierCurrency: b.tier_currency };
}

/** The wire fields of an earning rule body as use-case input (absent stays absent). */
function earningRuleChanges(body: Static<typeof UpdateEarningRuleBody>): EarningRuleChanges {
  return {
    name: body.name,
    currency: body.currency,
    points: body.points,
    perAmount: body.per_amount,
    rounding: body.rounding,
    maxAward: body.max_award,
    startsAt: body.starts_at,
    endsAt: body.ends_at,
    status: body.status,
  };
}

function rewardChanges(body: Static<typeof UpdateRewardBody>): SpendingRuleChanges {
  return {
    name: body.name,
    summary: body.summary,
    description: body.description,
    cost: body.cost,
    currency: body.currency,
    startsAt: body.starts_at,
    endsAt: body.ends_at,
    status: body.status,
  };
}

function tierChanges(body: Static<typeof UpdateTierBody>): TierChanges {
  return { name: body.name, summary: body.summary, description: body.description, threshold: body.threshold, windowDays: body.window_days };
}

export const ruleRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  requireOnEveryRoute(app, requireBearer(engine));
  const config = { style: 'resource' as const };

  // ---- earning rules
  {
    const tags = ['Earning rules'];
    app.get('/earning-rules', { config, schema: { tags, security, querystring: ListQuerySchema, response: { 200: pageOf(EarningRuleSchema) } } }, async (request) => {
      const page = await listEarningRules(engine, vendorOf(request), request.query);
      return { items: page.items.map(earningRuleToWire), ...pageLinks(request, page) };
    });

    app.get('/earning-rules/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: EarningRuleSchema } } }, async (request) =>
      earningRuleToWire(await getEarningRule(engine, vendorOf(request), request.params.id)),
    );

    app.post('/earning-rules', { config, schema: { tags, security, body: CreateEarningRuleBody, response: { 201: EarningRuleSchema } } }, async (request, reply) => {
      const body = request.body;
      const rule = await createEarningRule(engine, vendorOf(request), { ...earningRuleChanges(body), name: body.name, currency: body.currency, points: body.points, perAmount: body.per_amount });
      return reply.code(201).send(earningRuleToWire(rule));
    });

    app.put(
      '/earning-rules/:id',
      { config, schema: { tags, security, params: IdParamsSchema, body: UpdateEarningRuleBody, response: { 200: EarningRuleSchema } } },
      async (request) => earningRuleToWire(await updateEarningRule(engine, vendorOf(request), request.params.id, earningRuleChanges(request.body ?? {}))),
    );

    app.delete('/earning-rules/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: EmptyObjectSchema } } }, async (request) => {
      await deleteEarningRule(engine, vendorOf(request), request.params.id);
      return {};
    });
  }

  // ---- rewards (spending rules)
  {
    const tags = ['Rewards (spending rules)'];
    app.get('/rewards', { config, schema: { tags, security, querystring: ListQuerySchema, response: { 200: pageOf(RewardSchema) } } }, async (request) => {
      const page = await listSpendingRules(engine, vendorOf(request), request.query);
      return { items: page.items.map(rewardToWire), ...pageLinks(request, page) };
    });

    app.get('/rewards/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: RewardSchema } } }, async (request) =>
      rewardToWire(await getSpendingRule(engine, vendorOf(request), request.params.id)),
    );

    app.post('/rewards', { config, schema: { tags, security, body: CreateRewardBody, response: { 201: RewardSchema } } }, async (request, reply) => {
      const body = request.body;
      const reward = await createSpendingRule(engine, vendorOf(request), { ...rewardChanges(body), name: body.name, cost: body.cost, currency: body.currency });
      return reply.code(201).send(rewardToWire(reward));
    });

    app.put('/rewards/:id', { config, schema: { tags, security, params: IdParamsSchema, body: UpdateRewardBody, response: { 200: RewardSchema } } }, async (request) => {
      return rewardToWire(await updateSpendingRule(engine, vendorOf(request), request.params.id, rewardChanges(request.body ?? {})));
    });

    app.delete('/rewards/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: EmptyObjectSchema } } }, async (request) => {
      await deleteSpendingRule(engine, vendorOf(request), request.params.id);
      return {};
    });
  }

  // ---- tiers
  {
    const tags = ['Tiers'];
    app.get('/tiers', { config, schema: { tags, security, querystring: ListQuerySchema, response: { 200: pageOf(TierSchema) } } }, async (request) => {
      const page = await listTiers(engine, vendorOf(request), request.query);
      return { items: page.items.map(tierToWire), ...pageLinks(request, page) };
    });

    app.get('/tiers/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: TierSchema } } }, async (request) =>
      tierToWire(await getTier(engine, vendorOf(request), request.params.id)),
    );

    app.post('/tiers', { config, schema: { tags, security, body: CreateTierBody, response: { 201: TierSchema } } }, async (request, reply) => {
      const body = request.body;
      const tier = await createTier(engine, vendorOf(request), { ...tierChanges(body), name: body.name, threshold: body.threshold });
      return reply.code(201).send(tierToWire(tier));
    });

    app.put('/tiers/:id', { config, schema: { tags, security, params: IdParamsSchema, body: UpdateTierBody, response: { 200: TierSchema } } }, async (request) => {
      return tierToWire(await updateTier(engine, vendorOf(request), request.params.id, tierChanges(request.body ?? {})));
    });

    app.delete('/tiers/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: EmptyObjectSchema } } }, async (request) => {
      await deleteTier(engine, vendorOf(request), request.params.id);
      return {};
    });
  }

  // ---- program settings
  {
    const tags = ['Program settings'];
    app.get('/program/settings', { config, schema: { tags, security, response: { 200: ProgramSettingsSchema } } }, async (request) =>
      settingsToWire(await getProgramSettings(engine, vendorOf(request))),
    );

    app.put('/program/settings', { config, schema: { tags, security, body: UpdateProgramSettingsBody, response: { 200: ProgramSettingsSchema } } }, async (request) =>
      settingsToWire(await updateProgramSettings(engine, vendorOf(request), settingsChanges(request.body))),
    );
  }
};
