import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { hashSecret, newSecret } from '../credentials/secrets';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';

/** A login session lasts 30 days from login, or until logout, a password change or account deletion. */
export const SESSION_TTL_DAYS = 30;

export interface CustomerSession {
  sessionId: number;
  userId: number;
  vendorId: number;
}

export async function createSession(
  db: Kysely<DB>,
  engine: Engine,
  input: { userId: number; vendorId: number },
): Promise<{ sessionKey: string; onlineOrderToken: string; expiresAt: number }> {
  const sessionKey = newSecret('pcsk');
  const onlineOrderToken = newSecret('pcot');
  const now = engine.clock.now();
  const expiresAt = now + SESSION_TTL_DAYS * 24 * 3600_000;
  await db
    .insertInto('user_sessions')
    .values({
      id: await nextObjectId(db, engine.nodeId),
      user_id: input.userId,
      vendor_id: input.vendorId,
      key_hash: hashSecret(sessionKey),
      order_token_hash: hashSecret(onlineOrderToken),
      created_at: now,
      expires_at: expiresAt,
      ended_at: null,
    })
    .execute();
  return { sessionKey, onlineOrderToken, expiresAt };
}

/** Resolves a session_key: unknown, ended (logged out) and expired keys each say so. */
export async function authenticateSession(engine: Engine, sessionKey: string): Promise<CustomerSession> {
  const row = await engine.db
    .selectFrom('user_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 's.vendor_id', 's.expires_at', 's.ended_at', 'u.status'])
    .where('s.key_hash', '=', hashSecret(sessionKey))
    .executeTakeFirst();
  if (!row || row.status === 'deleted') throw new ServiceError('invalid_session');
  if (row.ended_at !== null) throw new ServiceError('session_ended');
  if (row.expires_at <= engine.clock.now()) throw new ServiceError('session_expired');
  return { sessionId: row.id, userId: row.user_id, vendorId: row.vendor_id };
}

export async function endSession(db: Kysely<DB>, engine: Engine, sessionId: number): Promise<void> {
  await db.updateTable('user_sessions').set({ ended_at: engine.clock.now() }).where('id', '=', sessionId).where('ended_at', 'is', null).execute();
}

/**
 * Ends every live session of a customer, except `keep` (the one making a password change), and
 * every app barcode drawn so far: a barcode checks in as the account at a counter, and nothing says
 * which session drew it (after a reset, the one a squatter's app still shows must die too; the
 * kept session's app draws a new one).
 */
export async function endAllSessions(db: Kysely<DB>, engine: Engine, userId: number, keep?: number): Promise<void> {
  let query = db.updateTable('user_sessions').set({ ended_at: engine.clock.now() }).where('user_id', '=', userId).where('ended_at', 'is', null);
  if (keep !== undefined) query = query.where('id', '!=', keep);
  await query.execute();
  await db.deleteFrom('barcode_tokens').where('user_id', '=', userId).execute();
}
