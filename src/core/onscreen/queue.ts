import type { StoreScope } from '../credentials/authenticate';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { Engine } from '../engine';
import { prepared } from '../storage/prepared';

export interface QueueEntry {
  id: number;
  hash: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  tableNumber: string | null;
  storeId: number;
  storeName: string;
  user: { id: number; firstName: string; lastName: string; email: string | null };
}

const waiting = prepared((db, vendorId: number, storeId: number) =>
  db
    .selectFrom('pos_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('stores as st', 'st.id', 's.store_id')
    // The customer's current link (its unique index is on the current ones: removed_at is null).
    .leftJoin('user_vendors as uv', (join) => join.onRef('uv.user_id', '=', 's.user_id').onRef('uv.vendor_id', '=', 's.vendor_id').on('uv.removed_at', 'is', null))
    .select(['uv.counter_enrolled', 'u.phone', 'u.birthdate'])
    .select(['s.id', 's.hash', 's.status', 's.created_at', 's.updated_at', 's.table_number', 's.store_id', 'st.name as store_name', 'u.id as user_id', 'u.first_name', 'u.last_name', 'u.email'])
    .where('s.vendor_id', '=', vendorId)
    .where('s.store_id', '=', storeId)
    .where('s.status', '=', 'active')
    .orderBy('s.created_at')
    .orderBy('s.id'),
);

/** GET /onscreen/queue: the store's open sessions, first come first served. */
export async function listQueue(engine: Engine, scope: StoreScope): Promise<QueueEntry[]> {
  const rows = await waiting(engine.db, scope.vendorId, scope.storeId);
  return rows.map((r) => {
    const user = seenAtCounter(r, { counter_enrolled: r.counter_enrolled ?? 0 });
    return {
      id: r.id,
      hash: r.hash,
      status: r.status,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      tableNumber: r.table_number,
      storeId: r.store_id,
      storeName: r.store_name,
      user: { id: r.user_id, firstName: user.first_name, lastName: user.last_name, email: user.email },
    };
  });
}
