import type { Engine } from '../engine';

export function listVendors(engine: Engine): Promise<Array<{ id: number; name: string }>> {
  return engine.db.selectFrom('vendors').select(['id', 'name']).orderBy('id').execute();
}
