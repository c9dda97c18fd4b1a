import type { FastifyBaseLogger } from 'fastify';
import { unavailabilityOf } from '../../core/storage/unavailable';
import { ServiceError } from '../../shared/errors';

// How long a client waits before asking again: PostgreSQL's restart or failover takes seconds; a full
// or read-only disk waits for a person, so asking every few seconds would only fill the log.
const DATABASE_RETRY_SECONDS = 5;
const STORAGE_RETRY_SECONDS = 30;
/** A failure of the moment (a deadlock past its retries, SQLite busy behind another process). */
export const BUSY_RETRY_SECONDS = 1;

/**
 * The reply to a database the node cannot use now (storage/unavailable.ts), with one error line for
 * the operator saying what and why; null for any other failure. The reply names neither the driver's
 * error nor the database's address: those stay in the log.
 */
export function unavailableDatabaseReply(error: unknown, log: FastifyBaseLogger): ServiceError | null {
  const unavailable = unavailabilityOf(error);
  if (!unavailable) return null;
  const code = unavailable.kind === 'database' ? 'database_unavailable' : 'storage_unavailable';
  log.error({ code, cause: unavailable.cause, detail: (error as Error).message }, `the database cannot be used (${unavailable.cause}): ${unavailable.advice}; requests answer 503 meanwhile`);
  const reply = new ServiceError(code);
  reply.retryAfterSeconds = unavailable.kind === 'database' ? DATABASE_RETRY_SECONDS : STORAGE_RETRY_SECONDS;
  return reply;
}
