import { ServiceError } from '../../shared/errors';
import { API_KEY_ROLES, type ApiKeyRole } from '../../shared/roles';
import { type Actor, recordAudit } from '../audit/record-audit';
import { type Engine, transact } from '../engine';
import { storesOwnedHere } from '../stores/store-admin';
import { addApiKey } from './api-keys';

// API keys as the back office shows them: named, with the last four characters, last use and
// revocation; the key itself is shown once when issued and never stored.

export interface ApiKeyListing {
  id: number;
  storeId: number;
  role: ApiKeyRole;
  label: string;
  hint: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

const keyAudit = (key: ApiKeyListing) => ({ store_id: key.storeId, role: key.role, label: key.label, hint: key.hint, revoked: key.revokedAt !== null });

export async function listApiKeys(engine: Engine, vendorId: number, storeId: number): Promise<ApiKeyListing[]> {
  const rows = await engine.db
    .selectFrom('api_keys')
    .select(['id', 'store_id', 'role', 'label', 'key_hint', 'created_at', 'last_used_at', 'revoked_at'])
    .where('vendor_id', '=', vendorId)
    .where('store_id', '=', storeId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({ id: r.id, storeId: r.store_id, role: r.role as ApiKeyRole, label: r.label, hint: r.key_hint, createdAt: r.created_at, lastUsedAt: r.last_used_at, revokedAt: r.revoked_at }));
}

async function loadKey(engine: Engine, vendorId: number, keyId: number): Promise<ApiKeyListing> {
  const row = await engine.db.selectFrom('api_keys').selectAll().where('vendor_id', '=', vendorId).where('id', '=', keyId).executeTakeFirst();
  if (!row) throw new ServiceError('api_key_not_found');
  return { id: row.id, storeId: row.store_id, role: row.role as ApiKeyRole, label: row.label, hint: row.key_hint, createdAt: row.created_at, lastUsedAt: row.last_used_at, revokedAt: row.revoked_at };
}

/** The store a key belongs to (to check a store manager's reach before revoking it). */
export async function storeOfApiKey(engine: Engine, vendorId: number, keyId: number): Promise<number> {
  return (await loadKey(engine, vendorId, keyId)).storeId;
}

/** A new key for a store's counter (cashier, integration) or kiosk; returned once. */
export async function issueApiKey(engine: Engine, actor: Actor, input: { storeId: number; role: string; label: string }): Promise<{ key: string; listing: ApiKeyListing }> {
  storesOwnedHere(engine);
  if (!(API_KEY_ROLES as readonly string[]).includes(input.role)) throw new ServiceError('validation_failed', `role must be one of ${API_KEY_ROLES.join(', ')}.`, 'role');
  const role = input.role as ApiKeyRole;
  const label = input.label.trim();
  // The request schema's limits (IssueApiKeyBody), in its words; this also refuses a label of spaces.
  if (label.length === 0) throw new ServiceError('validation_failed', 'label must not be empty.', 'label');
  if (label.length > 100) throw new ServiceError('validation_failed', 'label must be at most 100 characters.', 'label');
  const issued = await transact(engine, async (trx) => {
    const store = await trx.selectFrom('stores').select('id').where('vendor_id', '=', actor.vendorId).where('id', '=', input.storeId).executeTakeFirst();
    if (!store) throw new ServiceError('store_not_found');
    // Kiosk keys act for no point of sale: they may only check customers in.
    const pos = role === 'kiosk' ? null : await trx.selectFrom('points_of_sale').select('id').where('store_id', '=', store.id).orderBy('id').limit(1).executeTakeFirst();
    const made = await addApiKey(trx, engine, { vendorId: actor.vendorId, storeId: store.id, posId: pos?.id ?? null, role, label });
    const listing: ApiKeyListing = { id: made.id, storeId: store.id, role, label, hint: made.key.slice(-4), createdAt: engine.clock.now(), lastUsedAt: null, revokedAt: null };
    await recordAudit(trx, engine, actor, { action: 'api_key.issue', objectType: 'api_key', objectId: made.id, before: null, after: keyAudit(listing) });
    return { key: made.key, listing };
  });
  return issued;
}

/** Revokes a key: the counter or kiosk using it is refused from its next call. Revoking twice is a no-op. */
export async function revokeApiKey(engine: Engine, actor: Actor, keyId: number): Promise<ApiKeyListing> {
  storesOwnedHere(engine);
  const before = await loadKey(engine, actor.vendorId, keyId);
  if (before.revokedAt !== null) return before;
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', keyId).where('vendor_id', '=', actor.vendorId).where('revoked_at', 'is', null).execute();
    const after = { ...before, revokedAt: now };
    await recordAudit(trx, engine, actor, { action: 'api_key.revoke', objectType: 'api_key', objectId: keyId, before: keyAudit(before), after: keyAudit(after) });
    return after;
  });
}
