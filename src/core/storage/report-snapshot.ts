import { isServiceError, ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { openOffLoopSnapshot } from './off-loop-snapshot';
import { openReadSnapshot } from './read-snapshot';

// A back-office report (the dashboard, a period's statement, a person's data) reads many
// aggregates or rows, a month or a year of a chain's history: on a central's SQLite file, seconds
// during which the node, whose statements run on its one thread, answered nothing else. Every
// report reads one snapshot, so its figures add up whatever is written meanwhile; on SQLite the
// snapshot's statements run on a worker thread (off-loop-snapshot.ts), on PostgreSQL in one
// read-only repeatable-read transaction (asynchronous already). An in-memory database, or an
// embedded PGlite, reads as it is.

/** A report longer than this is cut off (its snapshot released: a 503), so the WAL cannot grow without end. */
export const REPORT_LIMIT_MS = 10 * 60_000;

/**
 * Runs `load`, which only reads, with an engine whose reads are one snapshot's, off the event loop on
 * SQLite. `limitMs`: REPORT_LIMIT_MS but in tests.
 */
export async function readReport<T>(engine: Engine, load: (reads: Engine) => Promise<T>, limitMs = REPORT_LIMIT_MS): Promise<T> {
  const snapshot = await openReadSnapshot(engine.db, limitMs, () => {}, { openSqlite: openOffLoopSnapshot });
  try {
    return await load({ ...engine, db: snapshot.db });
  } catch (error) {
    // Released at its limit under the report, the snapshot's next query fails in the driver's words
    // (Kysely's destroyed driver on SQLite, its ended transaction on PostgreSQL), which would be a 500.
    if (!snapshot.open && !isServiceError(error)) throw new ServiceError('service_unavailable', 'The report took too long to read. Please try again, or ask for a shorter period.');
    throw error;
  } finally {
    await snapshot.release();
  }
}
