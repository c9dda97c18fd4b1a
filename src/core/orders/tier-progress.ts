import type { Kysely } from 'kysely';
import type { TierRow } from '../customers/membership';
import type { Engine } from '../engine';
import { announceTier } from '../inbox/announce';
import type { DB } from '../storage/schema';
import { recordTierChanged } from '../webhooks/events';
import { tierPoints } from './tier-points';

/**
 * Moves a member up to the highest tier whose threshold the points they earned in its window
 * reach (tierPoints). Called after an order earns; demotion when a window passes is
 * demoteTiers' work (tiers/demote-tiers.ts).
 */
export async function promoteTier(
  db: Kysely<DB>,
  engine: Engine,
  member: { vendorId: number; userId: number },
  vendorTiers?: readonly TierRow[],
  /** The current membership, when the caller read it in this transaction (with vendorTiers). */
  membership?: { id: number; tier_id: number | null },
): Promise<void> {
  const link =
    membership && vendorTiers
      ? { ...membership, threshold: vendorTiers.find((t) => t.id === membership.tier_id)?.threshold ?? null }
      : await db
          .selectFrom('user_vendors as uv')
          .leftJoin('tiers as t', 't.id', 'uv.tier_id')
          .select(['uv.id', 'uv.tier_id', 't.threshold'])
          .where('uv.user_id', '=', member.userId)
          .where('uv.vendor_id', '=', member.vendorId)
          .where('uv.removed_at', 'is', null)
          .executeTakeFirst();
  if (!link) return;
  // Highest first; the vendor's tiers from the program cache when the caller has them.
  const above = (t: TierRow) => t.threshold > (link.threshold ?? -1);
  const tiers = vendorTiers
    ? vendorTiers.filter(above).reverse()
    : await db.selectFrom('tiers').selectAll().where('vendor_id', '=', member.vendorId).where('threshold', '>', link.threshold ?? -1).orderBy('threshold', 'desc').execute();
  const now = engine.clock.now();
  for (const tier of tiers) {
    if ((await tierPoints(db, member, tier.window_days, now)) >= tier.threshold) {
      await db.updateTable('user_vendors').set({ tier_id: tier.id, tier_since: now, updated_at: now }).where('id', '=', link.id).execute();
      await announceTier(db, engine, member, tier);
      await recordTierChanged(db, engine, { ...member, fromTierId: link.tier_id, toTierId: tier.id });
      return;
    }
  }
}
