import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { announceTier } from '../inbox/announce';
import type { DB } from '../storage/schema';
import { recordTierChanged } from '../webhooks/events';

/**
 * Moves a member up to the highest tier whose threshold the points they earned in its window
 * reach (all loyalty currencies, earn entries only: spending does not demote). Called after an
 * order earns; demotion when a window passes is a job's work.
 */
export async function promoteTier(db: Kysely<DB>, engine: Engine, member: { vendorId: number; userId: number }): Promise<void> {
  const link = await db
    .selectFrom('user_vendors as uv')
    .leftJoin('tiers as t', 't.id', 'uv.tier_id')
    .select(['uv.id', 'uv.tier_id', 't.threshold'])
    .where('uv.user_id', '=', member.userId)
    .where('uv.vendor_id', '=', member.vendorId)
    .where('uv.removed_at', 'is', null)
    .executeTakeFirst();
  if (!link) return;
  const tiers = await db.selectFrom('tiers').selectAll().where('vendor_id', '=', member.vendorId).where('threshold', '>', link.threshold ?? -1).orderBy('threshold', 'desc').execute();
  const now = engine.clock.now();
  for (const tier of tiers) {
    let earned = db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .innerJoin('currencies as c', 'c.id', 'a.currency_id')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('e.amount'), eb.lit(0)).as('points'))
      .where('a.holder_type', '=', 'user')
      .where('a.holder_id', '=', member.userId)
      .where('a.vendor_id', '=', member.vendorId)
      .where('c.code', 'is', null)
      .where('e.kind', 'in', ['earn', 'earn_reversal']);
    if (tier.window_days !== null) earned = earned.where('e.created_at', '>', now - tier.window_days * 24 * 3600_000);
    const { points } = await earned.executeTakeFirstOrThrow();
    if (Number(points) >= tier.threshold) {
      await db.updateTable('user_vendors').set({ tier_id: tier.id, tier_since: now, updated_at: now }).where('id', '=', link.id).execute();
      await announceTier(db, engine, member, tier);
      await recordTierChanged(db, engine, { ...member, fromTierId: link.tier_id, toTierId: tier.id });
      return;
    }
  }
}
