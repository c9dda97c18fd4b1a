import type { Kysely } from 'kysely';
import { type Engine, ownsProgramData, transact } from '../../engine';
import { holderBalance } from '../../ledger/ledger';
import { recordTransaction } from '../../orders/record-transaction';
import { tierPoints } from '../../orders/tier-points';
import { lockRow } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import { recordTierChanged } from '../../webhooks/events';

const DAY = 24 * 3600_000;

/**
 * The tier-demotion job (hourly, with points expiry; only where the program's data is owned). A
 * member keeps a tier with a window while the points they earned in its last `window_days` reach
 * its threshold; once a full window has passed since they reached it and they no longer do, they
 * move down to the highest tier they still qualify for (the entry tier at worst). Each move writes a
 * history record ("tier_change": `rewards` names the old and new tier), so the customer's history
 * and the cashier's panel show it, and the `tier.changed` webhook event, as a promotion and a void's
 * take-back do. Tiers without a window (all time) never demote. Idempotent.
 */
export async function demoteTiers(engine: Engine): Promise<{ demoted: number }> {
  if (!ownsProgramData(engine)) return { demoted: 0 };
  const now = engine.clock.now();
  let demoted = 0;
  // Tier by tier, the members who reached it a full window ago: a range of the index on (tier_id, tier_since).
  for (const tier of await engine.db.selectFrom('tiers').select(['id', 'window_days', 'threshold']).where('window_days', 'is not', null).execute()) {
    for (const member of await dueMembersQuery(engine.db, Number(tier.id), now - Number(tier.window_days) * DAY).execute()) {
      // Most of them still qualify, every hour: read, not a transaction that takes their row (a
      // sale at the counter holds it on PostgreSQL). One who looks due is judged again inside one.
      const points = await tierPoints(engine.db, { vendorId: Number(member.vendor_id), userId: Number(member.user_id) }, Number(tier.window_days), now);
      if (points >= Number(tier.threshold)) continue;
      if (await demoteOne(engine, { ...member, tier_id: Number(tier.id) }, now)) demoted += 1;
    }
  }
  return { demoted };
}

/** Members of a tier who reached it at `reachedBy` or before (exported for the test of its plan). */
export function dueMembersQuery(db: Kysely<DB>, tierId: number, reachedBy: number) {
  return db
    .selectFrom('user_vendors')
    .select(['id', 'user_id', 'vendor_id'])
    .where('tier_id', '=', tierId)
    .where('tier_since', '<=', reachedBy)
    .where('removed_at', 'is', null);
}

async function demoteOne(engine: Engine, c: { id: number; user_id: number; vendor_id: number; tier_id: number }, now: number): Promise<boolean> {
  return transact(engine, async (trx) => {
    // Read again inside the transaction: an order (or another central process's run) may have moved
    // the member since; on PostgreSQL the row is taken, so that read is after theirs.
    await lockRow(trx, engine.dialect, 'user_vendors', c.id);
    const link = await trx.selectFrom('user_vendors').select(['tier_id']).where('id', '=', c.id).executeTakeFirst();
    if (!link || link.tier_id !== c.tier_id) return false;
    const member = { vendorId: c.vendor_id, userId: c.user_id };
    const tiers = await trx.selectFrom('tiers').selectAll().where('vendor_id', '=', c.vendor_id).orderBy('threshold', 'desc').execute();
    const current = tiers.find((t) => t.id === c.tier_id)!;
    if ((await tierPoints(trx, member, current.window_days, now)) >= current.threshold) return false;
    const entry = tiers[tiers.length - 1]!;
    let next = entry;
    for (const tier of tiers) {
      if (tier.threshold >= current.threshold || tier.id === entry.id) continue;
      if ((await tierPoints(trx, member, tier.window_days, now)) >= tier.threshold) {
        next = tier;
        break;
      }
    }
    if (next.id === current.id) return false;
    await trx.updateTable('user_vendors').set({ tier_id: next.id, tier_since: now, updated_at: now }).where('id', '=', c.id).execute();
    await recordTierChanged(trx, engine, { vendorId: c.vendor_id, userId: c.user_id, fromTierId: current.id, toTierId: next.id });
    const vendor = await trx.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', c.vendor_id).executeTakeFirstOrThrow();
    await recordTransaction(trx, engine, {
      vendorId: c.vendor_id,
      userId: c.user_id,
      storeId: null,
      orderId: null,
      kind: 'tier_change',
      occurredAt: now,
      total: 0,
      quickPayUsed: 0,
      quickPayLoaded: 0,
      quickPayBalance: vendor.quick_pay_currency_id === null ? 0 : await holderBalance(trx, { holderType: 'user', holderId: c.user_id, currencyId: vendor.quick_pay_currency_id }),
      items: [],
      taxes: [],
      receipts: [],
      rewards: [{ object: 'reward', kind: 'tier', name: `${current.name} → ${next.name}`, from: current.name, to: next.name, amount: 0 }],
      status: 'Complete',
    });
    return true;
  });
}
