import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { listRewards, type RewardRecord, type TierInfo } from '../../core/rewards/list-rewards';
import { RewardListQuery, RewardListSchema } from '../../shared/schemas/consumer';
import { toUnixSeconds } from '../../shared/time';
import { customerOf, requireSession } from '../auth/session';
import { amountWire, currencyRefWire } from './balances';

const tags = ['Rewards'];
const config = { style: 'legacy' as const };

function tierWire(tier: TierInfo | null) {
  return tier ? { object: 'tier' as const, id: tier.id, name: tier.name, summary: tier.summary, description: tier.description, threshold: tier.threshold } : null;
}

function rewardWire(reward: RewardRecord) {
  return {
    object: 'reward' as const,
    id: reward.id,
    name: reward.name,
    description: reward.description,
    summary: reward.summary,
    cost: amountWire(reward.cost, reward.currency),
    available: reward.available,
    progress: reward.progress,
    currency: currencyRefWire(reward.currency),
    expiring: reward.expiresAt === null ? null : toUnixSeconds(reward.expiresAt),
  };
}

export const rewardRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get(
    '/user/reward/list',
    { config, preValidation: requireSession(engine), schema: { tags, querystring: RewardListQuery, response: { 200: RewardListSchema } } },
    async (request) => {
      const listing = await listRewards(engine, customerOf(request), { vendorId: request.query.vendor });
      return { data: listing.rewards.map(rewardWire), tier: { current: tierWire(listing.currentTier), next: tierWire(listing.nextTier) } };
    },
  );
};
