import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { StaffRole } from '../../shared/staff-roles';
import { hashSecret, newSecret } from '../credentials/secrets';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';

/** A back-office session ends 12 hours after sign-in, or after 30 minutes without a call. */
export const STAFF_SESSION_HOURS = 12;
export const STAFF_IDLE_MINUTES = 30;
/** last_seen_at is written at most this often (a screen polls; a write per call is waste). */
const SEEN_GRANULARITY_MS = 60_000;

/** The staff member a back-office call acts for. */
export interface StaffPrincipal {
  sessionId: number;
  staffId: number;
  vendorId: number;
  email: string;
  name: string;
  role: StaffRole;
  storeId: number | null;
}

export async function createStaffSession(db: Kysely<DB>, engine: Engine, staff: { id: number; vendor_id: number }): Promise<{ token: string; expiresAt: number }> {
  const token = newSecret('pcss');
  const now = engine.clock.now();
  const expiresAt = now + STAFF_SESSION_HOURS * 3600_000;
  await db
    .insertInto('staff_sessions')
    .values({ id: await nextObjectId(db, engine.nodeId), staff_id: staff.id, vendor_id: staff.vendor_id, token_hash: hashSecret(token), created_at: now, last_seen_at: now, expires_at: expiresAt, ended_at: null })
    .execute();
  return { token, expiresAt };
}

/**
 * Resolves a back-office session token; ended, expired, idle and disabled each say so.
 * `activity: false` (a screen's background refresh) checks the session without moving its idle end.
 */
export async function authenticateStaffSession(engine: Engine, token: string, options: { activity?: boolean } = {}): Promise<StaffPrincipal> {
  const row = await engine.db
    .selectFrom('staff_sessions as s')
    .innerJoin('staff_accounts as a', 'a.id', 's.staff_id')
    .select(['s.id', 's.staff_id', 's.vendor_id', 's.expires_at', 's.ended_at', 's.last_seen_at', 'a.email', 'a.name', 'a.role', 'a.store_id', 'a.status'])
    .where('s.token_hash', '=', hashSecret(token))
    .executeTakeFirst();
  if (!row) throw new ServiceError('invalid_session');
  // Staff did not log out themselves here: signed out everywhere (from another tab), or disabled by an owner.
  if (row.ended_at !== null) throw new ServiceError('session_ended', 'This session was ended (signed out everywhere, or the account was disabled). Please sign in again.');
  const now = engine.clock.now();
  if (row.expires_at <= now || row.last_seen_at + STAFF_IDLE_MINUTES * 60_000 <= now) throw new ServiceError('session_expired');
  if (row.status !== 'active') throw new ServiceError('staff_disabled');
  if (options.activity !== false && now - row.last_seen_at >= SEEN_GRANULARITY_MS) {
    await engine.db.updateTable('staff_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute();
  }
  return { sessionId: row.id, staffId: row.staff_id, vendorId: row.vendor_id, email: row.email, name: row.name, role: row.role as StaffRole, storeId: row.store_id };
}

export async function endStaffSession(db: Kysely<DB>, engine: Engine, sessionId: number): Promise<void> {
  await db.updateTable('staff_sessions').set({ ended_at: engine.clock.now() }).where('id', '=', sessionId).where('ended_at', 'is', null).execute();
}

/** Sign-out everywhere, a password change or reset, a disabled account: every live session ends. */
export async function endAllStaffSessions(db: Kysely<DB>, engine: Engine, staffId: number): Promise<number> {
  const result = await db.updateTable('staff_sessions').set({ ended_at: engine.clock.now() }).where('staff_id', '=', staffId).where('ended_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
