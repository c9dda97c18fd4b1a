import type { CurrencyBalance } from '../balances/customer-balances';
import type { Engine } from '../engine';
import type { RewardRecord } from './list-rewards';

/**
 * The vendor's rewards (ACTIVE spending rules inside their window) as one customer sees them: how
 * many they can redeem now and how far they are towards the next. Shared by the app's reward list
 * and the counter's retrieve reply, so both always agree.
 */
export async function offeredRewards(engine: Engine, vendorId: number, balances: readonly CurrencyBalance[]): Promise<RewardRecord[]> {
  const now = engine.clock.now();
  const rows = await engine.db
    .selectFrom('spending_rules')
    .select(['id', 'public_id', 'name', 'summary', 'description', 'cost', 'currency_id', 'ends_at'])
    .where('vendor_id', '=', vendorId)
    .where('status', '=', 'ACTIVE')
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', now)]))
    .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
    .orderBy('cost')
    .orderBy('id')
    .execute();
  return rows.flatMap((row) => {
    // A reward priced in an archived currency cannot be redeemed: leave it out.
    const held = balances.find((b) => b.currency.id === row.currency_id);
    if (!held) return [];
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
