import type { ApiKeyRole } from '../../shared/roles';
import { type Engine, transact } from '../engine';
import { addApiKey } from './api-keys';

export interface ReplacedApiKey {
  vendorId: number;
  storeId: number;
  posId: number | null;
  role: ApiKeyRole;
  /** Names the key's owner (e.g. "Desktop cashier"); the keys it replaces carry the same label. */
  label: string;
}

/**
 * A fresh API key for a program that mints its own at every start (the desktop app, the node's
 * scanners): in one transaction, the store's unrevoked keys with the same label and role are revoked
 * and a new one is added, so restarts never pile keys up and an old copy stops working.
 */
export function replaceApiKey(engine: Engine, input: ReplacedApiKey): Promise<{ id: number; key: string; revoked: number }> {
  return transact(engine, async (trx) => {
    const revoked = await trx
      .updateTable('api_keys')
      .set({ revoked_at: engine.clock.now() })
      .where('vendor_id', '=', input.vendorId)
      .where('store_id', '=', input.storeId)
      .where('role', '=', input.role)
      .where('label', '=', input.label)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const added = await addApiKey(trx, engine, input);
    return { ...added, revoked: Number(revoked.numUpdatedRows) };
  });
}
