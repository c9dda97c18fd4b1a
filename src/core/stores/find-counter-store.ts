import type { Engine } from '../engine';

export interface CounterStore {
  vendorId: number;
  storeId: number;
  storeName: string;
  /** The store's first point of sale, or null when it has none. */
  posId: number | null;
}

/**
 * The store a terminal or a node's scanners serve: the one with `storeId` when given, else the
 * node's first store (lowest id, so the same one at every start). Null when there is none (yet).
 */
export async function findCounterStore(engine: Engine, storeId?: number): Promise<CounterStore | null> {
  let query = engine.db.selectFrom('stores').select(['id', 'vendor_id', 'name']).orderBy('id').limit(1);
  if (storeId !== undefined) query = query.where('id', '=', storeId);
  const store = await query.executeTakeFirst();
  if (!store) return null;
  const pos = await engine.db.selectFrom('points_of_sale').select('id').where('store_id', '=', store.id).orderBy('id').limit(1).executeTakeFirst();
  return { vendorId: store.vendor_id, storeId: store.id, storeName: store.name, posId: pos?.id ?? null };
}

/** How many stores the node holds: a node with several should name the one its scanners serve. */
export async function countStores(engine: Engine): Promise<number> {
  const row = await engine.db.selectFrom('stores').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
