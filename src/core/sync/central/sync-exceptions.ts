import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import type { SyncExceptionKind } from '../../../shared/sync-exception-kinds';
import type { SyncExceptionSaid } from '../../../shared/sync-exception-said';
import { englishMessage } from './exception-english';

/**
 * Something offline selling left for staff to look at: an overdraft, a conflict, a rejected event.
 * `said` is what its message says: kept as data for the back office to write in its language, and
 * written in English as the stored message (the HTTP API's).
 */
export async function recordSyncException(trx: Kysely<DB>, engine: Engine, node: PairedNode, kind: SyncExceptionKind, subject: string, said: SyncExceptionSaid): Promise<void> {
  await trx
    .insertInto('sync_exceptions')
    .values({
      vendor_id: node.vendorId,
      store_id: node.storeId,
      node_id: node.id,
      kind,
      subject,
      message: englishMessage(said),
      message_data: JSON.stringify(said),
      created_at: engine.clock.now(),
      resolved_at: null,
    })
    .execute();
}

export interface SyncExceptionRecord {
  id: number;
  storeId: number | null;
  nodeId: number | null;
  kind: string;
  subject: string;
  message: string;
  /** What the message says, as data; null for an exception recorded before migration 0045 (its English text only). */
  said: SyncExceptionSaid | null;
  createdAt: number;
  resolvedAt: number | null;
}

export async function listSyncExceptions(engine: Engine, vendorId: number, options: { open?: boolean } = {}): Promise<SyncExceptionRecord[]> {
  let query = engine.db.selectFrom('sync_exceptions').selectAll().where('vendor_id', '=', vendorId);
  if (options.open) query = query.where('resolved_at', 'is', null);
  const rows = await query.orderBy('id', 'desc').limit(500).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    storeId: r.store_id === null ? null : Number(r.store_id),
    nodeId: r.node_id === null ? null : Number(r.node_id),
    kind: r.kind,
    subject: r.subject,
    message: r.message,
    said: saidOf(r.message_data),
    createdAt: Number(r.created_at),
    resolvedAt: r.resolved_at === null ? null : Number(r.resolved_at),
  }));
}

/** A row's message_data read back (null: recorded before migration 0045). */
export function saidOf(messageData: string | null): SyncExceptionSaid | null {
  return messageData === null ? null : (JSON.parse(messageData) as SyncExceptionSaid);
}
