import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { hashSecret, newSecret } from '../credentials/secrets';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import type { StaffMember, StaffRow } from './staff-accounts';

export type StaffTokenPurpose = 'invitation' | 'password_reset' | 'sign_in_link';

/** How long each emailed or printed token lasts, in hours. */
export const STAFF_TOKEN_HOURS: Record<StaffTokenPurpose, number> = { invitation: 72, password_reset: 2, sign_in_link: 24 };
const PREFIX: Record<StaffTokenPurpose, string> = { invitation: 'pcsi', password_reset: 'pcsr', sign_in_link: 'pcsl' };

/**
 * A one-time token (256 random bits, stored hashed); a new one of the same purpose voids the older
 * ones. With when it stops working.
 */
export async function issueStaffToken(db: Kysely<DB>, engine: Engine, staff: { id: number; vendor_id: number }, purpose: StaffTokenPurpose): Promise<{ token: string; expiresAt: number }> {
  const token = newSecret(PREFIX[purpose]);
  const now = engine.clock.now();
  const expiresAt = now + STAFF_TOKEN_HOURS[purpose] * 3600_000;
  await voidStaffTokens(db, engine, staff.id, purpose);
  await db
    .insertInto('staff_tokens')
    .values({
      id: await nextObjectId(db, engine.nodeId),
      staff_id: staff.id,
      vendor_id: staff.vendor_id,
      purpose,
      token_hash: hashSecret(token),
      created_at: now,
      expires_at: expiresAt,
      used_at: null,
    })
    .execute();
  return { token, expiresAt };
}

/** Marks the account's unused tokens of `purpose` used, so none of them works any more. */
export async function voidStaffTokens(db: Kysely<DB>, engine: Engine, staffId: number, purpose: StaffTokenPurpose): Promise<void> {
  await db.updateTable('staff_tokens').set({ used_at: engine.clock.now() }).where('staff_id', '=', staffId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}

/** Marks every unused token of the account used, whatever it was for (the account is disabled). */
export async function voidAllStaffTokens(db: Kysely<DB>, engine: Engine, staffId: number): Promise<void> {
  await db.updateTable('staff_tokens').set({ used_at: engine.clock.now() }).where('staff_id', '=', staffId).where('used_at', 'is', null).execute();
}

/** An invited account's invitation: when its newest emailed link stops working, and whether it has. */
export interface PendingInvitation {
  expiresAt: number;
  /** By the node's clock (or the link was used up): sending it again is the way in. */
  expired: boolean;
}

/**
 * The invitations of the `invited` accounts among `staff`, by account id: the newest invitation
 * token of each (a newer one voids the older, so the newest is the one that can still work).
 */
export async function pendingInvitations(db: Kysely<DB>, engine: Engine, vendorId: number, staff: readonly StaffMember[]): Promise<Map<number, PendingInvitation>> {
  const invited = staff.filter((s) => s.status === 'invited').map((s) => s.id);
  const found = new Map<number, PendingInvitation>();
  if (invited.length === 0) return found;
  const tokens = await db
    .selectFrom('staff_tokens')
    .select(['staff_id', 'expires_at', 'used_at'])
    .where('vendor_id', '=', vendorId)
    .where('purpose', '=', 'invitation')
    .where('staff_id', 'in', invited)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const now = engine.clock.now();
  for (const token of tokens) found.set(token.staff_id, { expiresAt: token.expires_at, expired: token.used_at !== null || token.expires_at <= now });
  return found;
}

/** Uses a token up (once) and returns its staff account. */
export async function consumeStaffToken(db: Kysely<DB>, engine: Engine, purpose: StaffTokenPurpose, token: string): Promise<StaffRow> {
  const row = await db.selectFrom('staff_tokens').selectAll().where('token_hash', '=', hashSecret(token)).where('purpose', '=', purpose).executeTakeFirst();
  if (!row || row.used_at !== null) throw new ServiceError('invalid_code', undefined, 'token');
  const now = engine.clock.now();
  if (row.expires_at <= now) throw new ServiceError('code_expired', undefined, 'token');
  // Conditional, so two uses at the same time cannot both succeed.
  const used = await db.updateTable('staff_tokens').set({ used_at: now }).where('id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
  if (Number(used.numUpdatedRows) !== 1) throw new ServiceError('invalid_code', undefined, 'token');
  const staff = await db.selectFrom('staff_accounts').selectAll().where('id', '=', row.staff_id).executeTakeFirstOrThrow();
  if (staff.status === 'disabled') throw new ServiceError('staff_disabled');
  return staff;
}
