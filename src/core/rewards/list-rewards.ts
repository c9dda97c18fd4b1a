import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { CurrencyInfo } from '../balances/balance-store';
import { customerBalances } from '../balances/customer-balances';
import { loadMembership, type TierRow } from '../customers/membership';
import type { CustomerSession } from '../customers/sessions';
import type { Engine } from '../engine';
import type { DB } from '../storage/schema';
import { offeredRewards } from './offered-rewards';

/** A reward (spending rule) the customer can work towards. */
export interface RewardRecord {
  id: number;
  /** rwd_…: what an order's `redemptions` names. */
  publicId: string;
  name: string;
  description: string;
  summary: string;
  /** Price of one reward, in minor units of `currency` (points: whole numbers). */
  cost: number;
  /** How many the customer can redeem now; ready when > 0. */
  available: number;
  /** Balance / cost towards the next one, 0 to 1. */
  progress: number;
  currency: CurrencyInfo;
  /** When the reward stops being offered (epoch ms); null: no end. */
  expiresAt: number | null;
}

export interface TierInfo {
  id: number;
  name: string;
  summary: string;
  description: string;
  threshold: number;
}

export interface RewardListing {
  rewards: RewardRecord[];
  currentTier: TierInfo | null;
  /** The vendor's tier with the next higher threshold; the lowest tier when the customer has none. */
  nextTier: TierInfo | null;
}

/**
 * GET /user/reward/list: the rewards of the vendor as this customer sees them, and their tier.
 * `vendor`, when sent, must be the session's vendor (a session acts for one vendor).
 */
export async function listRewards(engine: Engine, session: CustomerSession, input: { vendorId?: number | undefined }): Promise<RewardListing> {
  if (input.vendorId !== undefined && input.vendorId !== session.vendorId) {
    throw new ServiceError('forbidden', 'This session belongs to another program (vendor).', 'vendor');
  }
  const membership = await loadMembership(engine.db, session.userId, session.vendorId);
  const current = membership.tier;
  return {
    rewards: await offeredRewards(engine, session.vendorId, await customerBalances(engine, session)),
    currentTier: current ? tierInfo(current) : null,
    nextTier: await nextTier(engine.db, session.vendorId, current),
  };
}

async function nextTier(db: Kysely<DB>, vendorId: number, current: TierRow | null): Promise<TierInfo | null> {
  let query = db.selectFrom('tiers').selectAll().where('vendor_id', '=', vendorId);
  if (current) query = query.where('threshold', '>', current.threshold);
  const row = await query.orderBy('threshold').orderBy('id').executeTakeFirst();
  return row ? tierInfo(row) : null;
}

function tierInfo(row: TierRow): TierInfo {
  return { id: row.id, name: row.name, summary: row.summary, description: row.description, threshold: Number(row.threshold) };
}
