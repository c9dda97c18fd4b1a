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

const accessTokenByHash = prepared((db, tokenHash: string) =>
  db
    .selectFrom('access_tokens as t')
    .leftJoin('vendor_versions as v', 'v.vendor_id', 't.vendor_id')
    .select(['t.vendor_id', 't.expires_at', 't.revoked_at', 'v.version'])
    .where('t.token_hash', '=', tokenHash),
);

/** What both credential reads return: the row with the vendor's version it was read at. */
interface VersionedRow {
  vendor_id: number;
  revoked_at: number | null;
  version: number | null;
}

/** Most credentials a database's cache keeps: beyond it (tokens exchanged hourly add up) it starts again. */
const MAX_CACHED_CREDENTIALS = 10_000;

/**
 * A credential's live row by its digest (undefined when missing or revoked), kept in memory per
 * database while the vendor's version is the one it was read at. Every write to a key or token moves
 * that version (migrations 0021 and 0027), as the program's data do (program-cache): a revoked or
 * changed credential is refused or re-read on the next call of every process. Read together with the
 * version in one statement (one snapshot), a row is never labelled with a version newer than itself.
 */
function cachedByVersion<Row extends VersionedRow>(read: (db: Engine['db'], digest: string) => Promise<Row[]>) {
  const cacheOf = mapPerDatabase<string, { version: number; row: Row }>();
  return async (engine: Engine, digest: string): Promise<Row | undefined> => {
    const cache = cacheOf(engine.db);
    const hit = cache.get(digest);
    if (hit && hit.version === (await versionOf(engine.db, hit.row.vendor_id))) return hit.row;
    const [row] = await read(engine.db, digest);
    if (!row || row.revoked_at !== null) {
      cache.delete(digest);
      return undefined;
    }
    if (cache.size >= MAX_CACHED_CREDENTIALS) cache.clear();
    cache.set(digest, { version: Number(row.version ?? 0), row });
    return row;
  };
}

const liveAccessToken = cachedByVersion(accessTokenByHash);

/** Resolves a bearer token to the vendor it acts for (expiry judged on every call). */
export async function authenticateBearer(engine: Engine, token: string): Promise<BearerScope> {
  const row = await liveAccessToken(engine, hashSecret(token));
  if (!row) throw new ServiceError('invalid_token');
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

const liveApiKey = cachedByVersion(apiKeyByHash);

/**
 * A paired store node has every key of its chain (they replicate with the program), but it sells
 * for its own store only: central refuses what a node pushes for another store, so a sale taken
 * here with another store's key would be told "done" at the counter and then lost.
 */
function refuseOtherStoresKey(engine: Engine, keyStoreId: number): void {
  const served = engine.centralLink.storeId;
  if (served !== undefined && keyStoreId !== served) throw new ServiceError('forbidden', 'This key belongs to another store of the chain: use a key of the store this node serves.');
}

/** Resolves an api_key to its store, point of sale and role. */
export async function authenticateApiKey(engine: Engine, key: string): Promise<StoreScope> {
  const row = await liveApiKey(engine, hashSecret(key));
  if (!row) throw new ServiceError('invalid_api_key');
  refuseOtherStoresKey(engine, row.store_id);
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
