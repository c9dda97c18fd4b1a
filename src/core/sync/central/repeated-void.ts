import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { postEntry } from '../../ledger/ledger';
import { lockRow } from '../../storage/dialect';
import { nodeOfId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import { recordSyncException } from './sync-exceptions';
import { orderSubject } from '../../../shared/exception-subject';

// One order voided at two nodes before the voids met (a store offline and central, or two tills of
// one store): each void gave every entry of the order a reversal, so applied as they come the
// customer would get the spent points and quick pay back twice. The void central applies first
// stands. The later one's reversals are facts of its node and are kept (entries are immutable, and
// refusing them would leave that node with entries central never has), but central reverses each
// of them at once, its void record is kept as `Duplicate`, and staff see an exception. The new
// rows flow to every node with the next pull.

/** The status of a void record that repeated another node's void of the same order. */
export const REPEATED_VOID_STATUS = 'Duplicate';

/** An entry of the account (other than `entryId`) reversing `targetId` that is not itself reversed (the account's reversals index). */
async function standingReversalOf(trx: Kysely<DB>, accountId: number, targetId: number, entryId: number): Promise<boolean> {
  const found = await trx
    .selectFrom('ledger_entries as r')
    .select('r.id')
    .where('r.account_id', '=', accountId)
    .where('r.reverses_id', '=', targetId)
    .where('r.id', '!=', entryId)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('ledger_entries as undone').select('undone.id').whereRef('undone.reverses_id', '=', 'r.id'))))
    .executeTakeFirst();
  return found !== undefined;
}

/**
 * After a store's reversal entry is written (`data`, on `accountId`): when its target was already
 * reversed here, reverses it in turn.
 */
export async function undoRepeatedReversal(trx: Kysely<DB>, engine: Engine, accountId: number, data: Record<string, unknown>): Promise<void> {
  const entryId = Number(data['id']);
  const targetId = Number(data['reverses_id']);
  // A void of the same order at central right now (PostgreSQL) takes the order's row first too:
  // whichever is second waits, then sees the other's reversals (or its void) when it looks.
  if (data['reference_type'] === 'order' && Number.isSafeInteger(Number(data['reference_id']))) await lockRow(trx, engine.dialect, 'orders', Number(data['reference_id']));
  if (!(await standingReversalOf(trx, accountId, targetId, entryId))) return;
  await postEntry(trx, engine, accountId, {
    amount: -Number(data['amount']),
    kind: 'void_repeated',
    referenceType: (data['reference_type'] as string | null) ?? null,
    referenceId: (data['reference_id'] as string | null) ?? null,
    reversesId: entryId,
  });
}

/**
 * A store's void record of an order whose void central already holds: kept as a repeat (not a
 * second refund in the customer's history), with an exception for staff. So is the tier note of
 * such a void (takeBackTier) when the void central holds moved the tier too: the tier moved once.
 * The sale's own note of the tier its points got (promoteTier) is no void's: it repeats nothing.
 */
export async function markRepeatedVoidRecord(trx: Kysely<DB>, engine: Engine, node: PairedNode, data: Record<string, unknown>): Promise<void> {
  if (!(await isRepeatedVoidRecord(trx, data))) return;
  data['status'] = REPEATED_VOID_STATUS;
  if (data['kind'] !== 'void') return;
  // Staff find a sale by its receipt (the order's id alone found nothing in the back office).
  const order = await trx.selectFrom('orders').select('receipt_number').where('id', '=', Number(data['order_id'])).executeTakeFirst();
  await recordSyncException(trx, engine, node, 'void_repeated', orderSubject(String(data['order_id'])), { key: 'void_repeated', params: { receipt: order ? order.receipt_number : null } });
}

async function isRepeatedVoidRecord(trx: Kysely<DB>, data: Record<string, unknown>): Promise<boolean> {
  const kind = data['kind'];
  if ((kind !== 'void' && kind !== 'tier_change') || typeof data['order_id'] !== 'number' || typeof data['user_id'] !== 'number') return false;
  // Through the customer's history (transactions_user): the order's void records are theirs, and
  // so are its tier notes, the sale's promotion among them (told apart by isTakeBackNote).
  const records = await trx
    .selectFrom('transactions')
    .select(['id', 'kind', 'status'])
    .where('user_id', '=', data['user_id'])
    .where('vendor_id', '=', Number(data['vendor_id']))
    .where('order_id', '=', data['order_id'])
    .where('kind', 'in', ['void', 'tier_change'])
    .where('id', '!=', Number(data['id']))
    .execute();
  const standing = records.filter((r) => r.kind === kind && r.status !== REPEATED_VOID_STATUS);
  if (kind === 'void') return standing.length > 0;
  // Its own void record came before it in the same event.
  const voids = records.filter((r) => r.kind === 'void');
  return isTakeBackNote({ id: Number(data['id']) }, voids) && standing.some((note) => isTakeBackNote(note, voids));
}

/**
 * Whether a `tier_change` record of an order is the note of a void that took its tier back
 * (takeBackTier), not the note of the promotion the sale's points got (promoteTier): a void record
 * of the order made by the same node before it. A void writes its void record, then its tier note,
 * in one transaction; a sale writes its promotion before the order can be voided; and a node's ids
 * are in the order it made its rows (storage/ids.ts). Neither the record's tier names (display
 * text: a vendor renames a tier, or deletes it) nor its times (node clocks order nothing,
 * docs/sync.md; one instant may hold a sale and its void) tell the two apart as surely.
 */
export function isTakeBackNote(note: { id: number }, voidsOfOrder: ReadonlyArray<{ id: number }>): boolean {
  const node = nodeOfId(Number(note.id));
  return voidsOfOrder.some((v) => nodeOfId(Number(v.id)) === node && Number(v.id) < Number(note.id));
}
