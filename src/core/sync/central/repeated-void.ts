import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { postEntry } from '../../ledger/ledger';
import { lockRow } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import { recordSyncException } from './sync-exceptions';

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
 */
export async function markRepeatedVoidRecord(trx: Kysely<DB>, engine: Engine, node: PairedNode, data: Record<string, unknown>): Promise<void> {
  if (!(await isRepeatedVoidRecord(trx, data))) return;
  data['status'] = REPEATED_VOID_STATUS;
  if (data['kind'] !== 'void') return;
  await recordSyncException(trx, engine, node, 'void_repeated', `order ${String(data['order_id'])}`, 'voided here after another node had voided it: the later void was reversed, the order is reversed once');
}

async function isRepeatedVoidRecord(trx: Kysely<DB>, data: Record<string, unknown>): Promise<boolean> {
  const kind = data['kind'];
  if ((kind !== 'void' && kind !== 'tier_change') || typeof data['order_id'] !== 'number' || typeof data['user_id'] !== 'number') return false;
  // Through the customer's history (transactions_user): the order's void records are theirs.
  const earlier = await trx
    .selectFrom('transactions')
    .select('id')
    .where('user_id', '=', data['user_id'])
    .where('vendor_id', '=', Number(data['vendor_id']))
    .where('order_id', '=', data['order_id'])
    .where('kind', '=', kind)
    .where('status', '!=', REPEATED_VOID_STATUS)
    .where('id', '!=', Number(data['id']))
    .executeTakeFirst();
  return earlier !== undefined;
}
