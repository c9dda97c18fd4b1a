import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { judgeStoreTierMove } from '../../orders/tier-progress';
import { queueAutoReloadOnCrossing } from '../../payments/auto-reload/auto-reloads';
import { isTakeBackNote } from './repeated-void';
import type { DB } from '../../storage/schema';
import { subscribedKinds } from '../../webhooks/record-event';
import {
  type EventTime,
  type SessionFacts,
  recordBalanceUpdated,
  recordCheckInEvent,
  recordCustomerEvent,
  recordOrderEvent,
  recordTierChanged,
  recordUserCardCreated,
} from '../../webhooks/events';
import type { WebhookKind } from '../../webhooks/kinds';

// What central does when a store's change lands, besides storing it: the webhook events the same
// change raises on a standalone node (a store replica raises none: the program's owner does), and
// the auto reload a quick-pay spend crossing the customer's threshold queues. Events carry the
// store's original time (occurredAt), so an integration sees when the sale happened.

/** Per push: what the vendor's integrations want, whether an auto reload was queued, tier notes to mend. */
export interface StoreChangeEffects {
  vendorId: number;
  wanted: Set<string>;
  autoReloadQueued: boolean;
  /**
   * `user:time` of each store move of a tier central did not follow (put back, or moved elsewhere),
   * with what the store's note of it must say: that note may come after the membership.
   */
  tierNotesToMend: Map<string, TierNoteMend>;
}

/** What a store's note of a tier move must become: Voided (central put the tier back), or the move central made. */
type TierNoteMend = { kind: 'put_back' } | { kind: 'moved'; from: string; to: string };

export async function prepareStoreChangeEffects(trx: Kysely<DB>, vendorId: number): Promise<StoreChangeEffects> {
  return { vendorId, wanted: await subscribedKinds(trx, vendorId), autoReloadQueued: false, tierNotesToMend: new Map() };
}

type Row = Record<string, unknown>;

/**
 * After one change of a store's event was applied: `before` is central's row before it (undefined
 * for a new row), and the row as it now stands is read back only when an effect needs it.
 */
export async function applyStoreChangeEffects(
  trx: Kysely<DB>,
  engine: Engine,
  effects: StoreChangeEffects,
  change: { tbl: string; id: number; occurredAt: number; accountId?: number; kind?: string; balanceAfter?: number },
  before: Row | undefined,
): Promise<void> {
  const time: EventTime = { occurredAt: change.occurredAt };
  const wants = (kind: WebhookKind) => effects.wanted.has(kind);
  const vendorId = effects.vendorId;
  switch (change.tbl) {
    case 'ledger_entries':
      // Most entries (points earned) need nothing: no reads unless a webhook wants it or it spends.
      if (change.accountId !== undefined && (wants('balance.updated') || change.kind === 'spend')) await ledgerEntryEffects(trx, engine, effects, change.id, change.accountId, change.balanceAfter, time);
      return;
    case 'user_vendors': {
      // A store that moved a tier down (a void taking it back) judged on the points it had seen:
      // central's own may hold more (sales made elsewhere), so a changed tier is judged again
      // (judgeStoreTierMove); one put back raises no event, and the store's note of it is Voided;
      // one central moved elsewhere raises one event, of central's move, and the note tells that move.
      const mayHaveMovedTier = before !== undefined && before['tier_id'] != null;
      if (!mayHaveMovedTier && !wants('customer.registered') && !wants('tier.changed')) return;
      const row = await readRow(trx, 'user_vendors', change.id);
      if (!row || row['removed_at'] != null) return;
      const userId = Number(row['user_id']);
      if (mayHaveMovedTier && row['tier_id'] !== before['tier_id']) {
        const held = { linkId: change.id, tierId: Number(before['tier_id']), since: Number(before['tier_since']) };
        // The store's time of the move (central's judgement overwrites it): the store's note of the move bears it.
        const movedAt = Number(row['updated_at']);
        const judged = await judgeStoreTierMove(trx, engine, { vendorId, userId }, held, row['tier_id'] == null ? null : Number(row['tier_id']));
        const key = `${userId}:${movedAt}`;
        if (judged.kind === 'put_back') {
          effects.tierNotesToMend.set(key, judged);
          await mendTierNotes(trx, vendorId, userId, movedAt, judged);
          return;
        }
        if (judged.kind === 'moved') {
          const mend: TierNoteMend = { kind: 'moved', from: judged.from.name, to: judged.to.name };
          effects.tierNotesToMend.set(key, mend);
          await mendTierNotes(trx, vendorId, userId, movedAt, mend);
          // From the tier central held to the one it ends with: the store's own move never happened here.
          if (wants('tier.changed')) await recordTierChanged(trx, engine, { vendorId, userId, fromTierId: held.tierId, toTierId: judged.to.id }, time);
          return;
        }
        // An event run again (PostgreSQL) is judged again.
        effects.tierNotesToMend.delete(key);
      }
      if (!before && wants('customer.registered')) await recordCustomerEvent(trx, engine, 'customer.registered', { vendorId, userId, via: 'counter' }, time);
      if (before && row['tier_id'] != null && row['tier_id'] !== before['tier_id'] && wants('tier.changed')) {
        await recordTierChanged(trx, engine, { vendorId, userId, fromTierId: before['tier_id'] == null ? null : Number(before['tier_id']), toTierId: Number(row['tier_id']) }, time);
      }
      return;
    }
    case 'transactions': {
      // The store's note of a tier move central did not follow, applied after the membership's row.
      if (before || effects.tierNotesToMend.size === 0) return;
      const note = await trx.selectFrom('transactions').select(['user_id', 'occurred_at']).where('id', '=', change.id).executeTakeFirst();
      const mend = note && effects.tierNotesToMend.get(`${Number(note.user_id)}:${Number(note.occurred_at)}`);
      if (note && mend) await mendTierNotes(trx, vendorId, Number(note.user_id), Number(note.occurred_at), mend);
      return;
    }
    case 'user_cards': {
      if (before || !wants('user_card.created')) return;
      const row = await readRow(trx, 'user_cards', change.id);
      if (!row || row['removed_at'] != null) return;
      const card = await trx.selectFrom('cards').select(['id', 'number']).where('id', '=', Number(row['card_id'])).executeTakeFirstOrThrow();
      const link = { id: change.id, vendorId, userId: Number(row['user_id']), status: String(row['status']), createdAt: Number(row['created_at']), updatedAt: Number(row['updated_at']) };
      await recordUserCardCreated(trx, engine, { ...link, card: { id: Number(card.id), number: card.number } }, time);
      return;
    }
    case 'pos_sessions': {
      if (!wants('check_in.opened') && !wants('check_in.closed')) return;
      const row = await readRow(trx, 'pos_sessions', change.id);
      if (!row) return;
      const facts = row as unknown as SessionFacts;
      if (!before && wants('check_in.opened')) await recordCheckInEvent(trx, engine, 'check_in.opened', facts, null, time);
      const closedNow = row['status'] !== 'active' && (!before || before['status'] === 'active');
      if (closedNow && wants('check_in.closed')) {
        await recordCheckInEvent(trx, engine, 'check_in.closed', facts, { at: Number(row['closed_at'] ?? change.occurredAt), reason: String(row['closed_reason'] ?? 'closed') }, time);
      }
      return;
    }
    case 'orders': {
      if (!wants('order.placed') && !wants('order.voided')) return;
      const row = await readRow(trx, 'orders', change.id);
      if (!row) return;
      if (!before && wants('order.placed')) await recordOrderEvent(trx, engine, 'order.placed', { id: change.id, vendorId }, time);
      if (row['status'] === 'voided' && before?.['status'] !== 'voided' && wants('order.voided')) await recordOrderEvent(trx, engine, 'order.voided', { id: change.id, vendorId }, time);
      return;
    }
  }
}

/**
 * A ledger entry from a store: balance.updated, and an auto reload when a quick-pay spend crossed the
 * threshold. `balanceAfter` is the account's balance right after this entry when a run of entries
 * moved it at once (the bulk path); otherwise the account's balance now is that.
 */
async function ledgerEntryEffects(
  trx: Kysely<DB>,
  engine: Engine,
  effects: StoreChangeEffects,
  entryId: number,
  accountId: number,
  balanceAfter: number | undefined,
  time: EventTime,
): Promise<void> {
  const entry = await trx.selectFrom('ledger_entries').select(['amount', 'kind', 'reference_type', 'reference_id', 'created_at']).where('id', '=', entryId).executeTakeFirstOrThrow();
  const account = await trx.selectFrom('ledger_accounts').select(['holder_type', 'holder_id', 'currency_id', 'balance']).where('id', '=', accountId).executeTakeFirstOrThrow();
  const amount = Number(entry.amount);
  const balance = balanceAfter ?? Number(account.balance);
  if (effects.wanted.has('balance.updated')) {
    await recordBalanceUpdated(
      trx,
      engine,
      {
        vendorId: effects.vendorId,
        accountId,
        holderType: account.holder_type,
        holderId: Number(account.holder_id),
        currencyId: Number(account.currency_id),
        entryId,
        amount,
        balance,
        kind: entry.kind,
        referenceType: entry.reference_type,
        referenceId: entry.reference_id,
        createdAt: Number(entry.created_at),
      },
      time,
    );
  }
  if (entry.kind !== 'spend' || account.holder_type !== 'user' || amount >= 0) return;
  const quickPay = await trx.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', effects.vendorId).executeTakeFirst();
  if (Number(quickPay?.quick_pay_currency_id) !== Number(account.currency_id)) return;
  const orderId = entry.reference_type === 'order' ? Number(entry.reference_id) : null;
  const queued = await queueAutoReloadOnCrossing(trx, engine, { vendorId: effects.vendorId, userId: Number(account.holder_id), balanceBefore: balance - amount, balanceAfter: balance, orderId });
  if (queued !== null) effects.autoReloadQueued = true;
}

/**
 * A store's void took a tier back (takeBackTier) and central did not follow. Put back: the member's
 * tier never moved, so the store's note of the move ("Gold → Silver") is kept marked Voided, as a
 * voided sale's record is. Moved elsewhere (central's points hold a tier in between): the note tells
 * central's move instead ("Gold → Member" becomes "Gold → Silver"), the one the tier.changed event
 * tells. Either way the change travels back to the stores. The note bears the instant the store
 * moved the membership (one `now` for both), which names it whichever of the two rows central
 * applies first.
 */
async function mendTierNotes(trx: Kysely<DB>, vendorId: number, userId: number, movedAt: number, mend: TierNoteMend): Promise<void> {
  const notes = await voidTierNotesAt(trx, vendorId, userId, movedAt);
  if (notes.length === 0) return;
  if (mend.kind === 'put_back') {
    await trx
      .updateTable('transactions')
      .set({ status: 'Voided' })
      .where('id', 'in', notes.map((n) => n.id))
      .execute();
    return;
  }
  for (const note of notes) {
    const rewards = JSON.parse(note.rewards) as Array<Record<string, unknown>>;
    const told = rewards.map((r) => (r['kind'] === 'tier' ? { ...r, name: `${mend.from} → ${mend.to}`, from: mend.from, to: mend.to } : r));
    const text = JSON.stringify(told);
    // A note already telling it (an event run again) is left as it is: no change to send the stores.
    if (text !== note.rewards) await trx.updateTable('transactions').set({ rewards: text }).where('id', '=', note.id).execute();
  }
}

/**
 * The member's standing tier notes of voids (takeBackTier) made at `movedAt`. A sale's note of its
 * promotion (promoteTier) may bear the same instant (a store's sale and void in one millisecond, or
 * a clock held still): it is left alone, as central follows every store's move up.
 */
async function voidTierNotesAt(trx: Kysely<DB>, vendorId: number, userId: number, movedAt: number): Promise<Array<{ id: number; rewards: string }>> {
  const notes = await trx
    .selectFrom('transactions')
    .select(['id', 'order_id', 'rewards'])
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .where('occurred_at', '=', movedAt)
    .where('kind', '=', 'tier_change')
    .where('order_id', 'is not', null)
    .where('status', '=', 'Complete')
    .execute();
  if (notes.length === 0) return [];
  const voids = await trx
    .selectFrom('transactions')
    .select(['id', 'order_id'])
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .where('kind', '=', 'void')
    .where('order_id', 'in', notes.map((n) => Number(n.order_id)))
    .execute();
  return notes.filter((note) => isTakeBackNote(note, voids.filter((v) => Number(v.order_id) === Number(note.order_id))));
}

async function readRow(trx: Kysely<DB>, table: 'user_vendors' | 'user_cards' | 'pos_sessions' | 'orders', id: number): Promise<Row | undefined> {
  return (await trx.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
}
