import type { Kysely } from 'kysely';
import type { ApiKeyRole, ErrorMode } from '../../shared/roles';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { hashSecret, newSecret, secretHint } from './secrets';

export interface NewApiKey {
  vendorId: number;
  storeId: number;
  posId: number | null;
  role: ApiKeyRole;
  label: string;
  errorMode?: ErrorMode;
}

/** Creates an API key for a store (and point of sale); the key itself is returned once, never stored. */
export async function addApiKey(db: Kysely<DB>, engine: Engine, input: NewApiKey): Promise<{ id: number; key: string }> {
  const key = newSecret('pcak');
  const id = await nextObjectId(db, engine.nodeId);
  await db
    .insertInto('api_keys')
    .values({
      id,
      vendor_id: input.vendorId,
      store_id: input.storeId,
      pos_id: input.posId,
      role: input.role,
      key_hash: hashSecret(key),
      key_hint: secretHint(key),
      label: input.label,
      error_mode: input.errorMode ?? 'http',
      workstation_identifier: null,
      created_at: engine.clock.now(),
      revoked_at: null,
    })
    .execute();
  return { id, key };
}
