import type { CurrencyBalance } from '../balances/customer-balances';
import type { Engine } from '../engine';
import { inWindow, type ProgramData, programData } from '../program-cache/program-data';
import type { RewardRecord } from './list-rewards';

/**
 * The vendor's rewards (ACTIVE spending rules inside their window, priced in a loyalty currency) as
 * one customer sees them: how many they can redeem now and how far they are towards the next. Shared
 * by the app's reward list and the counter's retrieve reply, so both always agree.
 */
export async function offeredRewards(engine: Engine, vendorId: number, balances: readonly CurrencyBalance[]): Promise<RewardRecord[]> {
  return rewardsIn(await programData(engine.db, vendorId), engine.clock.now(), balances);
}

/** offeredRewards with the vendor's program data in hand (its rewards are by cost, then id). */
export function rewardsIn(program: ProgramData, now: number, balances: readonly CurrencyBalance[]): RewardRecord[] {
  const rows = program.spendingRules.filter((r) => r.status === 'ACTIVE' && r.deleted_at === null && inWindow(r, now));
  return rows.flatMap((row) => {
    // A reward priced in an archived currency cannot be redeemed, nor one priced in a cash
    // currency (an ISO code: orders refuse it as reward_not_available): leave it out.
    const held = balances.find((b) => b.currency.id === row.currency_id);
    if (!held || held.currency.code !== null) return [];
    const cost = Number(row.cost);
    const balance = Math.max(0, held.balance);
    return [
      {
        id: row.id,
        publicId: row.public_id,
        name: row.name,
        description: row.description,
        summary: row.summary,
        cost,
        available: cost > 0 ? Math.floor(balance / cost) : 0,
        progress: cost > 0 ? Math.min(1, balance / cost) : 0,
        currency: held.currency,
        expiresAt: row.ends_at,
      },
    ];
  });
}
