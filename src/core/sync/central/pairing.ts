import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Engine, transact } from '../../engine';
import { hashSecret, newSecret } from '../../credentials/secrets';
import { nextSequence, UNPAIRED_NODE_FLOOR } from '../../storage/ids';
import { ServiceError } from '../../../shared/errors';
import type { DB } from '../../storage/schema';
import type { PairResponse } from '../protocol';
import type { PairedNode } from './apply-push';

// Pairing codes are typed on a touch screen: 8 characters of Crockford base32 (no I, L, O, U), shown
// as XXXX-XXXX, 40 bits. They are single use, expire in 15 minutes and guessing is rate-limited
// at the endpoint, so the space is far larger than what an attacker can try in a code's lifetime.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const PAIRING_CODE_TTL_MS = 15 * 60 * 1000;

export function normalisePairingCode(code: string): string {
  return code
    .toUpperCase()
    .replace(/[\s-]/g, '')
    .replace(/[IL]/g, '1')
    .replace(/O/g, '0');
}

export async function issuePairingCode(engine: Engine, vendorId: number, storeId: number): Promise<{ code: string; expiresAt: number }> {
  const store = await engine.db.selectFrom('stores').select('id').where('id', '=', storeId).where('vendor_id', '=', vendorId).executeTakeFirst();
  if (!store) throw new ServiceError('store_not_found', undefined, 'store');
  let raw = '';
  for (let i = 0; i < 8; i += 1) raw += ALPHABET[randomInt(ALPHABET.length)];
  const now = engine.clock.now();
  const expiresAt = now + PAIRING_CODE_TTL_MS;
  await engine.db
    .insertInto('sync_pairing_codes')
    // Keyed (HMAC under the node key, like one-time codes): a 40-bit code in a plain hash could be
    // recovered from a copy of the database in its 15 minutes.
    .values({ code_hash: engine.sealer.digest(raw), vendor_id: vendorId, store_id: storeId, created_at: now, expires_at: expiresAt, used_at: null })
    .execute();
  return { code: `${raw.slice(0, 4)}-${raw.slice(4)}`, expiresAt };
}

/** Spends a pairing code: allocates the node's number and issues its credential (stored hashed). */
export async function pairNode(engine: Engine, code: string, label: string): Promise<PairResponse> {
  const codeHash = engine.sealer.digest(normalisePairingCode(code));
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    // Spent in one guarded statement: of two redemptions at once, the second waits for the first's
    // row and, once it commits, finds the code used (a read, then an update, let both through).
    const pairing = await trx
      .updateTable('sync_pairing_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['vendor_id', 'store_id'])
      .executeTakeFirst();
    if (!pairing) throw new ServiceError('pairing_code_invalid', undefined, 'code');
    const nodeId = await nextSequence(trx, 'sync_nodes');
    if (nodeId >= UNPAIRED_NODE_FLOOR) throw new ServiceError('service_unavailable', 'This central node has paired all the store nodes it can number.');
    const credential = newSecret('pcn');
    await trx
      .insertInto('sync_nodes')
      .values({
        id: nodeId,
        vendor_id: pairing.vendor_id,
        store_id: pairing.store_id,
        credential_hash: hashSecret(credential),
        label: label.slice(0, 100) || `node ${nodeId}`,
        last_seen_at: now,
        paired_at: now,
        revoked_at: null,
      })
      .execute();
    const store = await trx.selectFrom('stores').select('name').where('id', '=', pairing.store_id).executeTakeFirst();
    return { node_id: nodeId, vendor_id: Number(pairing.vendor_id), store_id: Number(pairing.store_id), ...(store ? { store_name: store.name } : {}), credential };
  });
}

/** The paired node a credential belongs to; 401 with a clear code when it is unknown or revoked. */
export async function authenticateNode(engine: Engine, credential: string | undefined): Promise<PairedNode> {
  if (!credential?.startsWith('pcn_')) throw new ServiceError('node_credential_required');
  const node = await engine.db.selectFrom('sync_nodes').selectAll().where('credential_hash', '=', hashSecret(credential)).executeTakeFirst();
  if (!node) throw new ServiceError('node_credential_required', 'This node credential is not known to central.');
  if (node.revoked_at !== null) throw new ServiceError('node_revoked');
  return { id: Number(node.id), vendorId: Number(node.vendor_id), storeId: Number(node.store_id) };
}

export interface SyncNodeRecord {
  id: number;
  storeId: number;
  label: string;
  lastSeq: number;
  cursor: number;
  lastSeenAt: number | null;
  pairedAt: number;
  revokedAt: number | null;
  /** The schema level the store last synced with (its version); null: unknown. */
  schemaLevel: string | null;
}

export async function listSyncNodes(engine: Engine, vendorId: number): Promise<SyncNodeRecord[]> {
  const rows = await engine.db.selectFrom('sync_nodes').selectAll().where('vendor_id', '=', vendorId).orderBy('id').execute();
  return rows.map((r) => ({
    id: Number(r.id),
    storeId: Number(r.store_id),
    label: r.label,
    lastSeq: Number(r.last_seq),
    cursor: Number(r.cursor),
    lastSeenAt: r.last_seen_at === null ? null : Number(r.last_seen_at),
    pairedAt: Number(r.paired_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    schemaLevel: r.schema_level,
  }));
}

export async function revokeSyncNode(engine: Engine, vendorId: number, nodeId: number): Promise<void> {
  const result = await engine.db
    .updateTable('sync_nodes')
    .set({ revoked_at: engine.clock.now() })
    .where('id', '=', nodeId)
    .where('vendor_id', '=', vendorId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new ServiceError('sync_node_not_found');
}

/** Which of these nodes are still paired (not revoked, not gone), read from the database itself. */
export async function livePairedNodeIds(db: Kysely<DB>, ids: number[]): Promise<Set<number>> {
  const live = await db.selectFrom('sync_nodes').select('id').where('id', 'in', ids).where('revoked_at', 'is', null).execute();
  return new Set(live.map((row) => Number(row.id)));
}
