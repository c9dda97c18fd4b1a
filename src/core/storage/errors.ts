import { unavailabilityOf } from './unavailable';

/** True when the database refused a write because a unique index already holds the value. */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/**
 * True when PostgreSQL aborted the transaction to break a deadlock (40P01) or a serialization
 * conflict (40001): nothing of it was kept, and running it again is the documented remedy.
 */
export function isRetryableConflict(error: unknown): boolean {
  const code = codeOf(error);
  return code === '40P01' || code === '40001';
}

/**
 * True when a statement failed for a reason of the moment rather than of the data: a conflict as
 * above, a lock or statement timeout, the database busy, full or unreachable. Asked again later,
 * the same statement can succeed, so such a failure must never become a lasting verdict. This
 * includes a database out of reach or a file that cannot be written (unavailable.ts).
 */
export function isTransientFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (unavailabilityOf(error)) return true;
  if (code === undefined) return false;
  if (isRetryableConflict(error) || code === '55P03' || code === '57014' || code === '57P01') return true;
  // Connection exceptions (08…), insufficient resources such as a full disk (53…).
  if (/^(08|53)[0-9A-Z]{3}$/.test(code)) return true;
  return /^SQLITE_(BUSY|LOCKED|FULL|IOERR|NOMEM|INTERRUPT)/.test(code);
}

/** The error code better-sqlite3 (`SQLITE_…`) or PostgreSQL (SQLSTATE) put on the error, if any. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
