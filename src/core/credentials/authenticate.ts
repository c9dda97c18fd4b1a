import { ServiceError } from '../../shared/errors';
import type { ApiKeyRole, ErrorMode } from '../../shared/roles';
import type { Engine } from '../engine';
import { hashSecret } from './secrets';
import { mapPerDatabase } from '../storage/per-database';
import { prepared } from '../storage/prepared';
import { versionOf } from '../program-cache/program-data';

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
  db
    .selectFrom('api_keys as k')
    .leftJoin('vendor_versions as v', 'v.vendor_id', 'k.vendor_id')
    .select(['k.id', 'k.vendor_id', 'k.store_id', 'k.pos_id', 'k.role', 'k.error_mode', 'k.workstation_identifier', 'k.revoked_at', 'k.last_used_at', 'v.version'])
    .where('k.key_hash', '=', keyHash),
);

type ApiKeyRow = Awaited<ReturnType<typeof apiKeyByHash>>[number];

/**
 * Valid keys by digest, per database handle (engine.db), each with the vendor's version it was read
 * at. A key's writes move that version (migration 0021), as the program's data do (program-cache):
 * a hit is used only while the version is unchanged, so a revoked or changed key is refused or
 * re-read on the next call of every process. Read together with the version in one statement (one
 * snapshot), a key is never labelled with a version newer than itself.
 */
const keyCacheOf = mapPerDatabase<string, { version: number; row: ApiKeyRow }>();

/** Resolves an api_key to its store, point of sale and role. */
export async function authenticateApiKey(engine: Engine, key: string): Promise<StoreScope> {
  const keyHash = hashSecret(key);
  const cache = keyCacheOf(engine.db);
  const hit = cache.get(keyHash);
  let row: ApiKeyRow | undefined;
  if (hit && hit.version === (await versionOf(engine.db, hit.row.vendor_id))) row = hit.row;
  else {
    [row] = await apiKeyByHash(engine.db, keyHash);
    if (row && row.revoked_at === null) cache.set(keyHash, { version: Number(row.version ?? 0), row });
    else cache.delete(keyHash);
  }
  if (!row || row.revoked_at !== null) throw new ServiceError('invalid_api_key');
  // "Last used" for the back office, to the minute: one write a minute per key, not one per call.
  const now = engine.clock.now();
  if (row.last_used_at === null || now - row.last_used_at >= 60_000) {
    await engine.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
    row.last_used_at = now;
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
