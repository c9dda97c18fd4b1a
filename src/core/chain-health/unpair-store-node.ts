import { ServiceError } from '../../shared/errors';
import { recordAudit } from '../audit/record-audit';
import { type Engine, transact } from '../engine';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';

// A store node unpaired from the back office: a till replaced or gone for good. Central refuses its
// credential from the next request (as DELETE /sync/nodes/:id), and the node stops selling until it
// is paired again (docs/sync.md). Unlike the bearer route, the staff member who did it is audited.

export interface UnpairedNode {
  id: number;
  revokedAt: number;
}

export async function unpairStoreNode(engine: Engine, staff: StaffPrincipal, nodeId: number): Promise<UnpairedNode> {
  return transact(engine, async (trx) => {
    const node = await trx
      .selectFrom('sync_nodes')
      .select(['id', 'store_id', 'label', 'last_seq', 'last_seen_at', 'paired_at'])
      .where('id', '=', nodeId)
      .where('vendor_id', '=', staff.vendorId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!node) throw new ServiceError('sync_node_not_found');
    if (staff.role === 'store_manager' && Number(node.store_id) !== staff.storeId) throw new ServiceError('forbidden', 'A store manager sees only their own store.');
    const now = engine.clock.now();
    // Guarded by revoked_at: two staff unpairing at once record it once.
    const result = await trx.updateTable('sync_nodes').set({ revoked_at: now }).where('id', '=', nodeId).where('revoked_at', 'is', null).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new ServiceError('sync_node_not_found');
    await recordAudit(trx, engine, actorOf(staff), {
      action: 'sync_node.unpair',
      objectType: 'sync_node',
      objectId: nodeId,
      before: { label: node.label, store: Number(node.store_id), last_event: Number(node.last_seq), last_seen_at: node.last_seen_at === null ? null : new Date(Number(node.last_seen_at)).toISOString(), paired: true },
      after: { paired: false },
    });
    return { id: nodeId, revokedAt: now };
  });
}
