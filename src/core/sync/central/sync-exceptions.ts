import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import type { SyncExceptionKind } from '../../../shared/sync-exception-kinds';

/** Something offline selling left for staff to look at: an overdraft, a conflict, a rejected event. */
export async function recordSyncException(trx: Kysely<DB>, engine: Engine, node: PairedNode, kind: SyncExceptionKind, subject: string, message: string): Promise<void> {
  await trx
    .insertInto('sync_exceptions')
    .values({ vendor_id: node.vendorId, store_id: node.storeId, node_id: node.id, kind, subject, message, created_at: engine.clock.now(), resolved_at: null })
    .execute();
}

export interface SyncExceptionRecord {
  id: number;
  storeId: number | null;
  nodeId: number | null;
  kind: string;
  subject: string;
  message: string;
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
    createdAt: Number(r.created_at),
    resolvedAt: r.resolved_at === null ? null : Number(r.resolved_at),
  }));
}
