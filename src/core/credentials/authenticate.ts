import { ServiceError } from '../../shared/errors';
import type { ApiKeyRole, ErrorMode } from '../../shared/roles';
import type { Engine } from '../engine';
import { hashSecret } from './secrets';
import { prepared } from '../storage/prepared';

export interface BearerScope {
  vendorId: number;
  scope: 'admin';
}

export interface StoreScope {
  vendorId: number;
  storeId: number;
  posId: number | null;
  apiKeyId: number;
  role: ApiKeyRole;
  errorMode: ErrorMode;
  workstationIdentifier: string | null;
}

const accessTokenByHash = prepared((db, tokenHash: string) => db.selectFrom('access_tokens').select(['vendor_id', 'expires_at', 'revoked_at']).where('token_hash', '=', tokenHash));

/** Resolves a bearer token to the vendor it acts for. */
export async function authenticateBearer(engine: Engine, token: string): Promise<BearerScope> {
  const [row] = await accessTokenByHash(engine.db, hashSecret(token));
  if (!row || row.revoked_at !== null) throw new ServiceError('invalid_token');
  if (row.expires_at !== null && row.expires_at <= engine.clock.now()) throw new ServiceError('token_expired');
  return { vendorId: row.vendor_id, scope: 'admin' };
}

const apiKeyByHash = prepared((db, keyHash: string) =>
  db.selectFrom('api_keys').select(['id', 'vendor_id', 'store_id', 'pos_id', 'role', 'error_mode', 'workstation_identifier', 'revoked_at', 'last_used_at']).where('key_hash', '=', keyHash),
);

/** Resolves an api_key to its store, point of sale and role. */
export async function authenticateApiKey(engine: Engine, key: string): Promise<StoreScope> {
  const [row] = await apiKeyByHash(engine.db, hashSecret(key));
  if (!row || row.revoked_at !== null) throw new ServiceError('invalid_api_key');
  // "Last used" for the back office, to the minute: one write a minute per key, not one per call.
  const now = engine.clock.now();
  if (row.last_used_at === null || now - row.last_used_at >= 60_000) {
    await engine.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  return {
    vendorId: row.vendor_id,
    storeId: row.store_id,
    posId: row.pos_id,
    apiKeyId: row.id,
    role: row.role as ApiKeyRole,
    errorMode: row.error_mode as ErrorMode,
    workstationIdentifier: row.workstation_identifier,
  };
}
