/**
 * A database the node cannot use right now, told apart from a bug: PostgreSQL out of reach (refused,
 * ended, shutting down, out of connections, no connection in time), gone (its database dropped, the
 * node's credentials refused) or reporting damaged data; an SQLite file that cannot be written
 * (disk full, read-only, I/O error), opened, or read (damaged). Clients are told to try again later
 * (503); the operator's log says what to fix.
 */
export interface Unavailability {
  /** `database`: central's PostgreSQL; `storage`: the node's own SQLite file and its disk. */
  kind: 'database' | 'storage';
  /** The driver's code (SQLSTATE, SQLITE_…, ECONNREFUSED…), or the driver's message when it has none. */
  cause: string;
  /** What an operator reads in the log. */
  advice: string;
}

// SQLSTATEs of a server that cannot serve now: every connection exception (class 08); the server
// shutting down or starting (57P01–57P03); out of resources, connections included (class 53).
const POSTGRES_STATES = /^(08[0-9A-Z]{3}|57P0[123]|53[0-9A-Z]{3})$/;

// SQLSTATEs that a person must act on, each with what to do (the node serves again once it is done).
const POSTGRES_ADVICE: Record<string, string> = {
  '3D000': 'the database named in PUNCHCARD_DATABASE_URL does not exist (dropped or renamed): restore it (README, Backups) or point the URL at it',
  '28000': 'PostgreSQL refuses the role in PUNCHCARD_DATABASE_URL: check the role and pg_hba.conf',
  '28P01': 'PostgreSQL refuses the password in PUNCHCARD_DATABASE_URL: check the role\'s password',
  '58030': 'PostgreSQL failed to read or write its files: check its disk',
  XX001: 'PostgreSQL reports damaged data: check its disk and restore from a backup (README, Backups)',
  XX002: 'PostgreSQL reports a damaged index: REINDEX it (PostgreSQL names the index in its own log)',
};

const DISK_FULL = 'the disk holding the database is full (or the file reached its size limit): free space there; the node writes again once there is room';

// A socket to PostgreSQL that could not be opened or was cut (pg passes Node's own error on).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

// pg's own errors for a lost or unobtainable connection carry no code: only their text tells them.
const POOL_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];

/** What makes the database unusable now, when `error` says so; null for anything else (a bug stays a bug). */
export function unavailabilityOf(error: unknown): Unavailability | null {
  if (error === null || typeof error !== 'object') return null;
  const code = (error as { code?: unknown }).code;
  const message = (error as { message?: unknown }).message;
  if (typeof code === 'string') {
    if (/^SQLITE_FULL/.test(code)) return storage(code, DISK_FULL);
    // The shared-memory file (-shm) beside the database could not grow: on a disk with no byte
    // left, opening the database fails so (a till started again after its disk filled).
    if (code === 'SQLITE_IOERR_SHMSIZE') return storage(code, DISK_FULL);
    if (/^SQLITE_READONLY/.test(code)) return storage(code, 'the database file, its folder or its disk is read-only: make them writable by the user the node runs as');
    if (/^SQLITE_IOERR/.test(code)) return storage(code, 'the disk failed to read or write the database file: check the disk and its free space');
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return storage(code, 'the database file is damaged: stop the node and restore its folder from a backup (README, Backups); a paired store can instead be paired again on an empty folder');
    if (/^SQLITE_CANTOPEN/.test(code)) return storage(code, 'the database file or its folder cannot be opened: check that they exist and belong to the user the node runs as');
    if (POSTGRES_STATES.test(code)) return database(code);
    if (POSTGRES_ADVICE[code]) return database(code, POSTGRES_ADVICE[code]);
    // Node's socket errors carry the call that failed; anything else with such a code is not the pool's.
    if (NETWORK_CODES.has(code) && (typeof (error as { syscall?: unknown }).syscall === 'string' || error instanceof AggregateError)) return database(code);
  }
  if (typeof message === 'string' && POOL_MESSAGES.includes(message)) return database(message);
  return null;
}

function storage(cause: string, advice: string): Unavailability {
  return { kind: 'storage', cause, advice };
}

function database(cause: string, advice = 'PostgreSQL cannot be reached or cannot serve now: check that it runs and takes connections; the node reconnects by itself'): Unavailability {
  return { kind: 'database', cause, advice };
}
