import type { Kysely } from 'kysely';
import type { TierRow } from '../customers/membership';
import type { Engine } from '../engine';
import { announceTier } from '../inbox/announce';
import { holderBalance } from '../ledger/ledger';
import { programData } from '../program-cache/program-data';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { recordTierChanged } from '../webhooks/events';
import { recordTransaction } from './record-transaction';
import { tierPoints, tierPointsAt } from './tier-points';

/** What the history record of a tier move names of the sale it is about (its order, receipt and the quick-pay balance after it). */
export interface SaleOfTierMove {
  orderId: number;
  storeId: number;
  receipt: { receipt_number: string; till: number | null; payment_method: string | null };
  /** Minor units. */
  quickPayBalance: number;
}

/** A move up promoteTier made: from the tier's name (null: the member had none, or it was deleted), and its history record's id. */
export interface TierPromotion {
  from: string | null;
  to: TierRow;
  /**
   * Taken with the move, before the sale's own record takes its id: at the sale's time the sale's
   * record is the newest, as the cashier's panel reads a sale from elsewhere (customer-store.ts).
   */
  recordId: number;
}

/**
 * Moves a member up to the highest tier whose threshold the points they earned in its window
 * reach (tierPoints). Called after an order earns, which then writes the move's history record
 * (recordPromotion) once the order is; demotion when a window passes is demoteTiers' work
 * (tiers/demote-tiers.ts), and a void of the order takes it back (takeBackTier).
 */
export async function promoteTier(
  db: Kysely<DB>,
  engine: Engine,
  member: { vendorId: number; userId: number },
  vendorTiers?: readonly TierRow[],
  /** The current membership, when the caller read it in this transaction (with vendorTiers). */
  membership?: { id: number; tier_id: number | null },
): Promise<TierPromotion | null> {
  const link =
    membership && vendorTiers
      ? { ...membership, ...tierFacts(vendorTiers.find((t) => t.id === membership.tier_id)) }
      : await db
          .selectFrom('user_vendors as uv')
          .leftJoin('tiers as t', 't.id', 'uv.tier_id')
          .select(['uv.id', 'uv.tier_id', 't.threshold', 't.name'])
          .where('uv.user_id', '=', member.userId)
          .where('uv.vendor_id', '=', member.vendorId)
          .where('uv.removed_at', 'is', null)
          .executeTakeFirst();
  if (!link) return null;
  // Highest first; the vendor's tiers from the program cache when the caller has them.
  const above = (t: TierRow) => t.threshold > (link.threshold ?? -1);
  const tiers = vendorTiers
    ? vendorTiers.filter(above).reverse()
    : await db.selectFrom('tiers').selectAll().where('vendor_id', '=', member.vendorId).where('threshold', '>', link.threshold ?? -1).orderBy('threshold', 'desc').execute();
  const now = engine.clock.now();
  // A member without a tier (joined before the program had one) gets at least the entry tier, as
  // every new member does whatever its threshold: it is the tier of a member without points.
  const reached = async (tier: TierRow) => (link.tier_id === null && tier === tiers.at(-1)) || (await tierPoints(db, member, tier.window_days, now)) >= tier.threshold;
  for (const tier of tiers) {
    if (await reached(tier)) {
      await db.updateTable('user_vendors').set({ tier_id: tier.id, tier_since: now, updated_at: now }).where('id', '=', link.id).execute();
      await announceTier(db, engine, member, tier);
      await recordTierChanged(db, engine, { ...member, fromTierId: link.tier_id, toTierId: tier.id });
      return { from: link.name, to: tier, recordId: await nextObjectId(db, engine.nodeId) };
    }
  }
  return null;
}

/**
 * The history record `tier_change` of a promotion a sale's points got (promoteTier), written in the
 * sale's transaction once its order is (the record names it), as a void's take-back and a demotion
 * write theirs: the history tells the "Silver → Gold" a void may later take back. Dated as the sale
 * (`orderedAt`), so it stays beside it in the history whenever a till sends it.
 */
export async function recordPromotion(
  db: Kysely<DB>,
  engine: Engine,
  member: { vendorId: number; userId: number },
  promotion: TierPromotion,
  sale: SaleOfTierMove & { orderedAt: number },
): Promise<void> {
  await recordTierNote(db, engine, member, saleNamed(sale), sale.orderedAt, { from: promotion.from, to: promotion.to.name }, promotion.recordId);
}

/** What a tier note says of the sale it is about: none for central's own move (judgeStoreTierMove), as for a demotion. */
interface NoteSubject {
  orderId: number | null;
  storeId: number | null;
  receipts: unknown[];
  /** Minor units. */
  quickPayBalance: number;
}

const saleNamed = (sale: SaleOfTierMove): NoteSubject => ({ orderId: sale.orderId, storeId: sale.storeId, receipts: [sale.receipt], quickPayBalance: sale.quickPayBalance });

const tierFacts = (tier: TierRow | undefined) => ({ threshold: tier?.threshold ?? null, name: tier?.name ?? null });

/**
 * The history record of a tier move a sale's points made or its void undid: nothing moved on the
 * balances (total 0), the tiers in `rewards`. `from` is null for a member who had no tier (or whose
 * tier was deleted): the record names the tier reached.
 */
async function recordTierNote(
  db: Kysely<DB>,
  engine: Engine,
  member: { vendorId: number; userId: number },
  about: NoteSubject,
  at: number,
  move: { from: string | null; to: string },
  id?: number,
): Promise<void> {
  await recordTransaction(db, engine, {
    id,
    vendorId: member.vendorId,
    userId: member.userId,
    storeId: about.storeId,
    orderId: about.orderId,
    kind: 'tier_change',
    occurredAt: at,
    total: 0,
    quickPayUsed: 0,
    quickPayLoaded: 0,
    quickPayBalance: about.quickPayBalance,
    items: [],
    taxes: [],
    receipts: about.receipts,
    rewards: [{ object: 'reward', kind: 'tier', name: move.from === null ? move.to : `${move.from} → ${move.to}`, from: move.from, to: move.to, amount: 0 }],
    status: 'Complete',
  });
}

/** A sale being voided, as takeBackTier needs it; `quickPayBalance` is the balance after the void. */
export interface VoidedSale extends SaleOfTierMove {
  /** When the order was written (its earn entries' date). */
  placedAt: number;
  /** From the order's stored reply; absent for orders placed before it was kept. */
  tierBefore: { id: number | null; since: number } | undefined;
}

/**
 * After a void took back an earning order's points (voidOrder, in its transaction): when those
 * points got the member their current tier — reached at or after the sale, and not held without
 * them — they move to the highest tier the points left would have reached then (judged as of the
 * promotion, tier_since: later earnings count, a window that passed since costs nothing, so a
 * promotion still lasts one window), never below the tier held before the sale (kept in the order's reply; the entry tier for orders placed before that, or when that tier was deleted).
 * That floor is no floor when it was itself got by points voided since (a sale split in two, both
 * voided): it was reached by points then and is not by what stands of them. Back to the floor,
 * tier_since is what it was; to a tier in between, it stays the promotion's. Writes a history record
 * `tier_change` like demotion's and the `tier.changed` webhook event. One read for a member whose
 * tier the sale did not get; a void of an order that earned nothing asks nothing (the caller skips it).
 */
export async function takeBackTier(db: Kysely<DB>, engine: Engine, member: { vendorId: number; userId: number }, sale: VoidedSale): Promise<{ from: TierRow; to: TierRow } | null> {
  let read = db
    .selectFrom('user_vendors')
    .select(['id', 'tier_id', 'tier_since'])
    .where('user_id', '=', member.userId)
    .where('vendor_id', '=', member.vendorId)
    .where('removed_at', 'is', null);
  // Voids of two of the member's sales at once (PostgreSQL): the second judges after the first's move.
  if (engine.dialect === 'postgres') read = read.forUpdate();
  const link = await read.executeTakeFirst();
  if (!link || link.tier_id === null) return null;
  const before = sale.tierBefore;
  // Reached before the sale: its points did not get it. (The tier the sale found, reached again
  // since — a void of another sale judged it anew — is judged again below, its floor with it.)
  if (link.tier_since < sale.placedAt) return null;
  const { tiers } = await programData(engine.db, member.vendorId, db);
  // Lowest first.
  const entry = tiers[0];
  const current = tiers.find((t) => t.id === link.tier_id);
  if (!entry || !current || current.id === entry.id) return null;
  // Judged as of the promotion; points earned since count too (they would have got it since).
  const holds = async (tier: TierRow) => (await tierPoints(db, member, tier.window_days, link.tier_since)) >= tier.threshold;
  if (await holds(current)) return null;
  let floor = tiers.find((t) => t.id === before?.id) ?? entry;
  if (floor.id !== entry.id && before) {
    // Points reached it when it was reached, and what stands of them does not: voided since.
    const backing = await tierPointsAt(db, member, floor.window_days, before.since);
    if (backing.earned >= floor.threshold && backing.standing < floor.threshold) floor = entry;
  }
  if (current.threshold <= floor.threshold) return null;
  let next = floor;
  for (const tier of tiers.filter((t) => t.threshold > floor.threshold && t.threshold < current.threshold).reverse()) {
    if (await holds(tier)) {
      next = tier;
      break;
    }
  }
  const now = engine.clock.now();
  const since = before && next.id === floor.id && floor.id === before.id ? before.since : link.tier_since;
  await db.updateTable('user_vendors').set({ tier_id: next.id, tier_since: since, updated_at: now }).where('id', '=', link.id).execute();
  await recordTierChanged(db, engine, { ...member, fromTierId: current.id, toTierId: next.id });
  await recordTierNote(db, engine, member, saleNamed(sale), now, { from: current.name, to: next.name });
  return { from: current, to: next };
}

/**
 * What central made of a store's move of a tier: `put_back`, the tier it held stands and nothing
 * moved; `stands`, the store's move is central's too; `moved`, central's points held less than the
 * tier but more than the store moved to, and central moved the member from `from` to `to` itself
 * (no event or message: the caller tells the one move).
 */
export type StoreTierMoveJudged = { kind: 'put_back' } | { kind: 'stands' } | { kind: 'moved'; from: TierRow; to: TierRow };

/**
 * Central, after a store's push moved a member's tier from `held` (central's membership before it).
 * A move down is a store's void taking a tier back (takeBackTier) on the points the store had seen;
 * central judges it as that void would have here. The tier it held stands, put back with its
 * tier_since (nothing moved), when central's own points hold it (sales made elsewhere). Whether
 * points got a tier is not asked of sale times: they are the selling nodes' clocks, tier_since
 * another node's (docs/sync.md, "Clocks never order anything"). Otherwise the member goes to the
 * highest tier between the two that central's points hold, judged as of the promotion as
 * takeBackTier judges (tier_since stays the promotion's), never above the tier held: a void
 * promotes nobody. That is a move down from the held tier, so nothing is announced, as no void or
 * demotion announces. A move up (a store's sale) is judged as a sale is.
 */
export async function judgeStoreTierMove(
  db: Kysely<DB>,
  engine: Engine,
  member: { vendorId: number; userId: number },
  held: { linkId: number; tierId: number; since: number },
  movedTo: number | null,
): Promise<StoreTierMoveJudged> {
  const { tiers, vendor } = await programData(engine.db, member.vendorId, db);
  const from = tiers.find((t) => t.id === held.tierId);
  const to = tiers.find((t) => t.id === movedTo);
  if (!from || !to || to.threshold >= from.threshold) {
    // Central's points may reach higher (sales made elsewhere): its own move, with its own note,
    // which names no sale (the points of several did it), as a demotion's names none.
    const promotion = await promoteTier(db, engine, member);
    if (promotion) {
      const currencyId = vendor.quick_pay_currency_id;
      const quickPayBalance = currencyId === null ? 0 : await holderBalance(db, { holderType: 'user', holderId: member.userId, currencyId });
      const about = { orderId: null, storeId: null, receipts: [], quickPayBalance };
      await recordTierNote(db, engine, member, about, engine.clock.now(), { from: promotion.from, to: promotion.to.name }, promotion.recordId);
    }
    return { kind: 'stands' };
  }
  const holds = async (tier: TierRow) => (await tierPoints(db, member, tier.window_days, held.since)) >= tier.threshold;
  if (await holds(from)) {
    await db.updateTable('user_vendors').set({ tier_id: held.tierId, tier_since: held.since, updated_at: engine.clock.now() }).where('id', '=', held.linkId).execute();
    return { kind: 'put_back' };
  }
  // Highest first, strictly between where the store moved them and the tier held.
  for (const tier of tiers.filter((t) => t.threshold > to.threshold && t.threshold < from.threshold).reverse()) {
    if (await holds(tier)) {
      await db.updateTable('user_vendors').set({ tier_id: tier.id, tier_since: held.since, updated_at: engine.clock.now() }).where('id', '=', held.linkId).execute();
      return { kind: 'moved', from, to: tier };
    }
  }
  return { kind: 'stands' };
}
