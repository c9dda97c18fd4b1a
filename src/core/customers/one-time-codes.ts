import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';

// Secrets sent to a customer by email or SMS. Each is single-use, expires, and is kept only as a
// keyed digest. A new code of a purpose replaces the customer's previous one.
//  - "long" codes stand alone (reset, deletion: no session proves who is asking): 16 Crockford
//    base32 characters, 80 bits, shown as XXXX-XXXX-XXXX-XXXX; typing mistakes (O/0, I/L/1) forgiven.
//  - "digit" codes are checked against one known account (its session): 6 digits, 5 tries.

export type CodePurpose = 'password_reset' | 'email_verification' | 'sms_verification' | 'account_deletion';

export const CODE_POLICY: Record<CodePurpose, { ttlMinutes: number; shape: 'long' | 'digits'; maxAttempts: number }> = {
  password_reset: { ttlMinutes: 60, shape: 'long', maxAttempts: 1 },
  account_deletion: { ttlMinutes: 30, shape: 'long', maxAttempts: 1 },
  email_verification: { ttlMinutes: 24 * 60, shape: 'digits', maxAttempts: 5 },
  sms_verification: { ttlMinutes: 10, shape: 'digits', maxAttempts: 5 },
};

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function newCode(shape: 'long' | 'digits'): string {
  if (shape === 'digits') return String(randomInt(0, 1_000_000)).padStart(6, '0');
  let raw = '';
  for (let i = 0; i < 16; i++) raw += CROCKFORD[randomInt(0, 32)];
  return raw.match(/.{4}/g)!.join('-');
}

/** What a customer typed, read the way it was meant. */
export function normaliseCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

export async function issueCode(
  db: Kysely<DB>,
  engine: Engine,
  input: { userId: number; vendorId: number; purpose: CodePurpose; target?: string | null },
): Promise<string> {
  const policy = CODE_POLICY[input.purpose];
  const now = engine.clock.now();
  await db
    .updateTable('one_time_codes')
    .set({ used_at: now })
    .where('user_id', '=', input.userId)
    .where('purpose', '=', input.purpose)
    .where('used_at', 'is', null)
    .execute();
  const code = newCode(policy.shape);
  await db
    .insertInto('one_time_codes')
    .values({
      id: await nextObjectId(db, engine.nodeId),
      user_id: input.userId,
      vendor_id: input.vendorId,
      purpose: input.purpose,
      code_hash: engine.sealer.digest(normaliseCode(code)),
      target: input.target ?? null,
      attempts: 0,
      created_at: now,
      expires_at: now + policy.ttlMinutes * 60_000,
      used_at: null,
    })
    .execute();
  return code;
}

/**
 * Reset tokens and deletion codes stand alone: whoever reads the mailbox they went to can use them.
 * When the account's email changes, those sent to the old address stop working.
 */
export async function withdrawEmailedCodes(db: Kysely<DB>, engine: Engine, userId: number): Promise<void> {
  await db
    .updateTable('one_time_codes')
    .set({ used_at: engine.clock.now() })
    .where('user_id', '=', userId)
    .where('purpose', 'in', ['password_reset', 'account_deletion'])
    .where('used_at', 'is', null)
    .execute();
}

/**
 * A password the customer chose (changed with the current one) ends the resets asked for before it:
 * the emailed token would otherwise undo the change for an hour, for whoever reads that mailbox.
 */
export async function withdrawPasswordResets(db: Kysely<DB>, engine: Engine, userId: number): Promise<void> {
  await db
    .updateTable('one_time_codes')
    .set({ used_at: engine.clock.now() })
    .where('user_id', '=', userId)
    .where('purpose', '=', 'password_reset')
    .where('used_at', 'is', null)
    .execute();
}

export interface ConsumedCode {
  userId: number;
  vendorId: number;
  target: string | null;
}

/** A stand-alone code (reset, deletion): finds its owner, checks it, and uses it up. */
export async function consumeCode(db: Kysely<DB>, engine: Engine, purpose: CodePurpose, code: string, field = 'code'): Promise<ConsumedCode> {
  const row = await db
    .selectFrom('one_time_codes')
    .selectAll()
    .where('purpose', '=', purpose)
    .where('code_hash', '=', engine.sealer.digest(normaliseCode(code)))
    .executeTakeFirst();
  if (!row || row.used_at !== null) throw new ServiceError('invalid_code', undefined, field);
  if (row.expires_at <= engine.clock.now()) throw new ServiceError('code_expired', undefined, field);
  if (!(await useUp(db, engine, row.id))) throw new ServiceError('invalid_code', undefined, field);
  return { userId: row.user_id, vendorId: row.vendor_id, target: row.target };
}

/**
 * Marks a code used unless something else already did. On PostgreSQL two requests with one code
 * both read it unused; the second one's update waits for the first and then finds it used.
 */
async function useUp(db: Kysely<DB>, engine: Engine, codeId: number): Promise<boolean> {
  const result = await db.updateTable('one_time_codes').set({ used_at: engine.clock.now() }).where('id', '=', codeId).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * A code sent to a known account (verification): compared with that account's live codes of the
 * given purposes (an activation token may have come by email or by SMS). A wrong guess counts
 * against every live code; a code dies after its allowed number of tries. A failure is returned,
 * not thrown, so the caller can commit the counted try before reporting it.
 */
export async function consumeAccountCode(
  db: Kysely<DB>,
  engine: Engine,
  input: { userId: number; purposes: CodePurpose[]; code: string },
): Promise<(ConsumedCode & { purpose: CodePurpose }) | ServiceError> {
  const now = engine.clock.now();
  const rows = await db
    .selectFrom('one_time_codes')
    .selectAll()
    .where('user_id', '=', input.userId)
    .where('purpose', 'in', input.purposes)
    .where('used_at', 'is', null)
    .execute();
  const live = rows.filter((row) => row.expires_at > now);
  if (live.length === 0) return new ServiceError(rows.length > 0 ? 'code_expired' : 'invalid_code', undefined, 'token');
  const digest = engine.sealer.digest(normaliseCode(input.code));
  const match = live.find((row) => row.code_hash === digest);
  if (!match) {
    for (const row of live) await countWrongTry(db, now, row.id, CODE_POLICY[row.purpose as CodePurpose].maxAttempts);
    return new ServiceError('invalid_code', undefined, 'token');
  }
  if (!(await useUp(db, engine, match.id))) return new ServiceError('invalid_code', undefined, 'token');
  return { userId: match.user_id, vendorId: match.vendor_id, target: match.target, purpose: match.purpose as CodePurpose };
}

/**
 * Counted in SQL, not from the row as read: wrong guesses sent at the same time (PostgreSQL) each
 * count, so a burst cannot try more than the allowed number against one code.
 */
async function countWrongTry(db: Kysely<DB>, now: number, codeId: number, maxAttempts: number): Promise<void> {
  const row = await db
    .updateTable('one_time_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .returning('attempts')
    .executeTakeFirst();
  if (row && row.attempts >= maxAttempts) await db.updateTable('one_time_codes').set({ used_at: now }).where('id', '=', codeId).execute();
}
