import type { Engine } from '../../../src/core/engine';
import { nodeOfId } from '../../../src/core/storage/ids';

/**
 * What a node knew when its counter voided a sale or spent points, so that after healing the run
 * can tell which voids met a spend of the same points elsewhere, or a merge of the customer at
 * central, that the voiding node had not heard of (docs/sync.md, "Proof"). Only reads databases:
 * a seed's random stream is the same with it.
 */
interface VoidSeen {
  node: number;
  userId: number;
  /** The reversal entries this void wrote (none when the node had the sale voided already). */
  reversals: number[];
  /** Points the void took back (earned less redeemed, positive when the customer loses points). */
  takenBack: number;
  /** The customer's points at the voiding node after the void, their merged copies' included. */
  balanceAfter: number;
  /** Ledger entries of the customer the voiding node held before it voided. */
  entriesBefore: Set<number>;
  /** Customers the voiding node knew as merged before it voided. */
  mergedBefore: Set<number>;
}

interface SpendSeen {
  node: number;
  userId: number;
  /** The redeem entries of the sale, and their points. */
  entries: number[];
  cost: number;
  /** Ledger entries of the customer the spending node held once it had spent. */
  entriesKnown: Set<number>;
}

export class VoidMeetings {
  readonly #voids: VoidSeen[] = [];
  readonly #spends: SpendSeen[] = [];

  constructor(private readonly pointsCurrencyId: number) {}

  /** Before a void at a node: what it holds of the sale's customer. Pass the result to `voided`. */
  async beforeVoid(engine: Engine, storeId: number, receiptNumber: string): Promise<{ entries: Set<number>; merged: Set<number> } | null> {
    const order = await orderOf(engine, storeId, receiptNumber);
    if (!order || order.status === 'voided') return null;
    return { entries: await entriesOf(engine, await familyAt(engine, order.userId)), merged: await mergedAt(engine) };
  }

  /** After the void committed at the node. */
  async voided(engine: Engine, storeId: number, receiptNumber: string, before: { entries: Set<number>; merged: Set<number> } | null): Promise<void> {
    const order = await orderOf(engine, storeId, receiptNumber);
    if (!before || !order) return;
    const reversals = await engine.db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['e.id', 'e.amount'])
      .where('e.reference_type', '=', 'order')
      .where('e.reference_id', '=', String(order.id))
      .where('e.reverses_id', 'is not', null)
      .where('a.currency_id', '=', this.pointsCurrencyId)
      .execute();
    const own = reversals.filter((r) => nodeOfId(Number(r.id)) === engine.nodeId && !before.entries.has(Number(r.id)));
    if (own.length === 0) return;
    const family = await familyAt(engine, order.userId);
    this.#voids.push({
      node: engine.nodeId,
      userId: order.userId,
      reversals: own.map((r) => Number(r.id)),
      takenBack: -own.reduce((sum, r) => sum + Number(r.amount), 0),
      balanceAfter: await pointsOf(engine, family, this.pointsCurrencyId),
      entriesBefore: before.entries,
      mergedBefore: before.merged,
    });
  }

  /** After a sale that redeemed points committed at a node. */
  async spent(engine: Engine, storeId: number, receiptNumber: string): Promise<void> {
    const order = await orderOf(engine, storeId, receiptNumber);
    if (!order) return;
    const redeemed = await engine.db
      .selectFrom('ledger_entries')
      .select(['id', 'amount'])
      .where('reference_type', '=', 'order')
      .where('reference_id', '=', String(order.id))
      .where('kind', '=', 'redeem')
      .execute();
    if (redeemed.length === 0) return;
    this.#spends.push({
      node: engine.nodeId,
      userId: order.userId,
      entries: redeemed.map((r) => Number(r.id)),
      cost: -redeemed.reduce((sum, r) => sum + Number(r.amount), 0),
      entriesKnown: await entriesOf(engine, await familyAt(engine, order.userId)),
    });
  }

  /**
   * Counted after the convergence checks ran. A void meets a spend when it took back points a
   * sale had earned while another node, not having heard of the void, spent points of the same
   * customer the voiding node had not heard of, more than the balance the void left, and central
   * flagged the customer overdrawn. A void meets a merge when central merged the sale's customer
   * with another (either way) before the void reached it, and the voiding node had not heard of
   * that merge when it voided (a merge central made after the void arrived only followed it).
   * Only voids and spends central holds count.
   */
  async count(central: Engine): Promise<{ voidMeetsSpend: number; voidMeetsMerge: number }> {
    const mergedInto = new Map((await central.db.selectFrom('users').select(['id', 'merged_into']).execute()).map((u) => [Number(u.id), u.merged_into === null ? null : Number(u.merged_into)]));
    const root = (id: number): number => {
      let at = id;
      for (let hops = 0; hops < 100 && mergedInto.get(at); hops += 1) at = mergedInto.get(at)!;
      return at;
    };
    const overdrawn = new Set(
      (await central.db.selectFrom('sync_exceptions').select('subject').where('kind', '=', 'offline_overdraft').execute()).map((e) => root(Number(/^user (\d+)/.exec(e.subject)?.[1] ?? 0))),
    );
    // A void or a spend a restored store lost before sending it never met anything at central.
    const recorded = [...this.#voids.flatMap((v) => v.reversals), ...this.#spends.flatMap((s) => s.entries)];
    const atCentral = new Set(recorded.length === 0 ? [] : (await central.db.selectFrom('ledger_entries').select('id').where('id', 'in', recorded).execute()).map((e) => Number(e.id)));
    const spends = this.#spends.filter((s) => s.entries.every((id) => atCentral.has(id)));
    let voidMeetsSpend = 0;
    let voidMeetsMerge = 0;
    for (const v of this.#voids.filter((v) => v.reversals.every((id) => atCentral.has(id)))) {
      const survivor = root(v.userId);
      const family = [...mergedInto.keys()].filter((id) => root(id) === survivor);
      const unseen = spends.filter(
        (s) => s.node !== v.node && root(s.userId) === survivor && !s.entries.some((id) => v.entriesBefore.has(id)) && !v.reversals.some((id) => s.entriesKnown.has(id)),
      );
      const spentUnseen = unseen.reduce((sum, s) => sum + s.cost, 0);
      if (v.takenBack > 0 && unseen.length > 0 && v.balanceAfter - spentUnseen < 0 && overdrawn.has(survivor)) voidMeetsSpend += 1;
      const unheard = family.filter((id) => mergedInto.get(id) !== null && !v.mergedBefore.has(id));
      if (unheard.length === 0) continue;
      const arrived = await firstLoggedAt(central, 'ledger_entries', v.reversals);
      const voidArrived = Math.max(...v.reversals.map((id) => arrived.get(id) ?? Infinity));
      const merged = await firstLoggedAt(central, 'users', unheard);
      if (unheard.some((id) => (merged.get(id) ?? Infinity) < voidArrived)) voidMeetsMerge += 1;
    }
    return { voidMeetsSpend, voidMeetsMerge };
  }
}

/**
 * When central first logged each row: its place in central's change log, whose compaction keeps
 * every row's first change. A merged copy is merged as it is inserted (apply-push.ts), so its first
 * change is the merge; a reversal's is its arrival.
 */
async function firstLoggedAt(central: Engine, table: string, rowIds: number[]): Promise<Map<number, number>> {
  const rows = await central.db.selectFrom('sync_changes').select(['row_id', (eb) => eb.fn.min('seq').as('first')]).where('tbl', '=', table).where('row_id', 'in', rowIds).groupBy('row_id').execute();
  return new Map(rows.map((r) => [Number(r.row_id), Number(r.first)]));
}

async function orderOf(engine: Engine, storeId: number, receiptNumber: string): Promise<{ id: number; userId: number; status: string } | null> {
  const order = await engine.db.selectFrom('orders').select(['id', 'user_id', 'status']).where('store_id', '=', storeId).where('receipt_number', '=', receiptNumber).executeTakeFirst();
  return order && order.user_id !== null ? { id: Number(order.id), userId: Number(order.user_id), status: order.status } : null;
}

/** The customer and every copy merged with them, as this node knows it. */
async function familyAt(engine: Engine, userId: number): Promise<number[]> {
  const users = await engine.db.selectFrom('users').select(['id', 'merged_into']).execute();
  const mergedInto = new Map(users.map((u) => [Number(u.id), u.merged_into === null ? null : Number(u.merged_into)]));
  const root = (id: number): number => {
    let at = id;
    for (let hops = 0; hops < 100 && mergedInto.get(at); hops += 1) at = mergedInto.get(at)!;
    return at;
  };
  const survivor = root(userId);
  return [...new Set([userId, ...[...mergedInto.keys()].filter((id) => root(id) === survivor)])];
}

async function mergedAt(engine: Engine): Promise<Set<number>> {
  const rows = await engine.db.selectFrom('users').select('id').where('merged_into', 'is not', null).execute();
  return new Set(rows.map((r) => Number(r.id)));
}

async function entriesOf(engine: Engine, holders: number[]): Promise<Set<number>> {
  const rows = await engine.db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select('e.id')
    .where('a.holder_type', '=', 'user')
    .where('a.holder_id', 'in', holders)
    .execute();
  return new Set(rows.map((r) => Number(r.id)));
}

async function pointsOf(engine: Engine, holders: number[], currencyId: number): Promise<number> {
  const rows = await engine.db.selectFrom('ledger_accounts').select('balance').where('holder_type', '=', 'user').where('holder_id', 'in', holders).where('currency_id', '=', currencyId).execute();
  return rows.reduce((sum, r) => sum + Number(r.balance), 0);
}
