import type { FastifyInstance, FastifyRequest } from 'fastify';
import { noteDatabaseFailure } from '../../core/chain-health/node-health';
import type { Engine } from '../../core/engine';
import { unavailabilityOf } from '../../core/storage/unavailable';
import { ServiceError } from '../../shared/errors';

// How long a client waits before asking again: PostgreSQL's restart or failover takes seconds; a full
// or read-only disk waits for a person, so asking every few seconds would only fill the log.
const DATABASE_RETRY_SECONDS = 5;
const STORAGE_RETRY_SECONDS = 30;
/** A failure of the moment (a deadlock past its retries, SQLite busy behind another process). */
export const BUSY_RETRY_SECONDS = 1;

/** An outage answers every request with 503: the log says so once per cause every this often. */
const LOG_EVERY_MS = 10_000;

interface LoggedCause {
  at: number;
  /** Requests refused for this cause since its last line. */
  refused: number;
}

/** Per app (tests run several nodes in a process): when each cause was last logged. */
const loggedCauses = new WeakMap<FastifyInstance, Map<string, LoggedCause>>();

/**
 * The reply to a database the node cannot use now (storage/unavailable.ts), with an error line for
 * the operator saying what and why — one per cause every 10 s, counting the requests refused
 * meanwhile (at 100 requests a second an outage wrote 100 lines a second); null for any other
 * failure. The reply names neither the driver's error nor the database's address: those stay in
 * the log.
 */
export function unavailableDatabaseReply(error: unknown, request: FastifyRequest): ServiceError | null {
  const unavailable = unavailabilityOf(error);
  if (!unavailable) return null;
  const code = unavailable.kind === 'database' ? 'database_unavailable' : 'storage_unavailable';
  let causes = loggedCauses.get(request.server);
  if (!causes) loggedCauses.set(request.server, (causes = new Map()));
  const key = `${code} ${unavailable.cause}`;
  const logged = causes.get(key);
  const now = Date.now();
  if (logged && now - logged.at < LOG_EVERY_MS) logged.refused++;
  else {
    causes.set(key, { at: now, refused: 0 });
    const refusedSince = logged?.refused ?? 0;
    request.log.error(
      { code, cause: unavailable.cause, detail: (error as Error).message, ...(refusedSince > 0 ? { refused_since_last_line: refusedSince } : {}) },
      `the database cannot be used (${unavailable.cause}): ${unavailable.advice}; requests answer 503 meanwhile`,
    );
  }
  const reply = new ServiceError(code);
  reply.retryAfterSeconds = unavailable.kind === 'database' ? DATABASE_RETRY_SECONDS : STORAGE_RETRY_SECONDS;
  return reply;
}

/** Every request the database failed (any route) is told to the health check (node-health.ts). */
export function watchDatabaseFailures(app: FastifyInstance, engine: Engine): void {
  app.addHook('onError', async (_request, _reply, error) => noteDatabaseFailure(engine, error));
}
