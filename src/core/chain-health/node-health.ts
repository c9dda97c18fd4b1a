import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import type { Engine } from '../engine';
import { unavailabilityOf, type Unavailability } from '../storage/unavailable';
import type { SyncStatusSnapshot } from '../sync/store/sync-client';

// This node's own health for a monitor (GET /health), polled every few seconds: it must stay cheap
// and must not write on each call. Thresholds (docs/decisions.md):

/**
 * Free space of the data folder's disk under which the node is `degraded`: a store's database grows
 * by a few MB a day, its WAL by tens of MB between checkpoints, its log and email outbox beside it;
 * 1 GiB leaves days to weeks to act before sales fail with storage_unavailable.
 */
export const DISK_LOW_BYTES = 1024 ** 3;
/**
 * A paired store is `degraded` when its oldest unsent event, or its last successful pull, is older
 * than this: a sale is pushed at once and the loop pulls every 5 s, so 15 minutes is no Wi-Fi blip
 * or central restart, while a link stuck for hours is told long before the outbox is a day deep.
 */
export const SYNC_BEHIND_MS = 15 * 60_000;
/** While a write failure is remembered, a test write is tried at most this often (never otherwise). */
export const WRITE_PROBE_MS = 5_000;
/** How long `select 1` may take: a PostgreSQL that accepts but never answers waits 15 s for the pool. */
export const DATABASE_ANSWER_MS = 2_000;

export type CheckStatus = 'ok' | 'degraded' | 'unavailable';

/** Why the database cannot be used: no driver text, only what an operator acts on. */
export type DatabaseProblem = 'unreachable' | 'no_answer' | 'disk_full' | 'read_only' | 'io_error';

export interface DatabaseCheck {
  status: 'ok' | 'unavailable';
  reachable: boolean;
  /** False while the last write failure (SQLite: full, read-only, I/O error) has not been followed by a good write. */
  writable: boolean;
  problem: DatabaseProblem | null;
  /** When the problem was first seen (null: none). */
  since: number | null;
}

export interface DiskCheck {
  status: 'ok' | 'degraded';
  freeBytes: number;
  totalBytes: number;
  lowBelowBytes: number;
}

export interface SyncCheck {
  status: 'ok' | 'degraded';
  problem: 'unpaired_at_central' | 'central_refused' | 'events_unsent' | 'pull_stale' | null;
  link: 'up' | 'down';
  pending: number;
  oldestPendingAt: number | null;
  rejected: number;
  lastPushAt: number | null;
  lastPullAt: number | null;
  behindAfterMs: number;
}

export interface NodeHealth {
  status: CheckStatus;
  database: DatabaseCheck;
  /** Null where the node knows no data folder (a PostgreSQL node started without one). */
  disk: DiskCheck | null;
  /** Null on a node that is not a paired store. */
  sync: SyncCheck | null;
}

export interface NodeHealthSources {
  /** The data folder whose disk is checked; for SQLite the database file's folder when not given. */
  dataDir: string | null;
  /** A paired store's sync status (the sync client's own, as GET /sync/status reports it). */
  syncStatus: (() => Promise<SyncStatusSnapshot>) | null;
  /** When this process started serving (a store never pulled yet is judged from then). */
  startedAt: number;
  diskLowBytes?: number;
}

interface WriteFailure {
  problem: DatabaseProblem;
  since: number;
  probedAt: number;
}

// Per engine, not per process: tests run several nodes in one process.
const writeFailures = new WeakMap<Engine, WriteFailure>();
const databaseFolders = new WeakMap<Engine, string | null>();

/**
 * Remembers a write the node's SQLite file refused (called for every failed request): /health then
 * says the node cannot sell without writing itself on each poll. Other failures are ignored.
 */
export function noteDatabaseFailure(engine: Engine, error: unknown): void {
  const unavailable = unavailabilityOf(error);
  if (!unavailable || unavailable.kind !== 'storage') return;
  const now = engine.clock.now();
  const known = writeFailures.get(engine);
  writeFailures.set(engine, { problem: problemOf(unavailable), since: known?.since ?? now, probedAt: now });
}

export async function checkNodeHealth(engine: Engine, sources: NodeHealthSources): Promise<NodeHealth> {
  const database = await checkDatabase(engine);
  const folder = sources.dataDir ?? (await databaseFolder(engine));
  const [disk, sync] = await Promise.all([folder === null ? null : checkDisk(folder, sources.diskLowBytes ?? DISK_LOW_BYTES), database.reachable && sources.syncStatus ? checkSync(engine, sources) : null]);
  const statuses: CheckStatus[] = [database.status, disk?.status ?? 'ok', sync?.status ?? 'ok'];
  const status = statuses.includes('unavailable') ? 'unavailable' : statuses.includes('degraded') ? 'degraded' : 'ok';
  return { status, database, disk, sync };
}

async function checkDatabase(engine: Engine): Promise<DatabaseCheck> {
  const answered = await answersInTime(engine);
  if (answered !== true) {
    writeFailures.delete(engine);
    return { status: 'unavailable', reachable: false, writable: false, problem: answered, since: null };
  }
  let failure = writeFailures.get(engine);
  const now = engine.clock.now();
  if (failure && now - failure.probedAt >= WRITE_PROBE_MS) failure = await probeWrite(engine, failure, now);
  if (!failure) return { status: 'ok', reachable: true, writable: true, problem: null, since: null };
  return { status: 'unavailable', reachable: true, writable: false, problem: failure.problem, since: failure.since };
}

/** True, or why not: `select 1` within DATABASE_ANSWER_MS. */
async function answersInTime(engine: Engine): Promise<true | DatabaseProblem> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<DatabaseProblem>((resolve) => {
    timer = setTimeout(() => resolve('no_answer'), DATABASE_ANSWER_MS);
  });
  const query = sql`select 1`.execute(engine.db).then(
    () => true as const,
    (error: unknown) => {
      const unavailable = unavailabilityOf(error);
      return unavailable ? problemOf(unavailable) : ('unreachable' as const);
    },
  );
  try {
    return await Promise.race([query, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A write that must grow the file by a few pages and commit, undone in the same transaction: a
 * file at its size limit, a full disk or a read-only one refuses it as it refuses a sale. Only
 * while a failure is remembered, at most every WRITE_PROBE_MS.
 */
async function probeWrite(engine: Engine, failure: WriteFailure, now: number): Promise<WriteFailure | undefined> {
  try {
    await engine.db.transaction().execute(async (trx) => {
      await trx.insertInto('node_meta').values({ key: 'health_write_probe', value: 'x'.repeat(16_384) }).onConflict((oc) => oc.column('key').doUpdateSet({ value: 'x'.repeat(16_384) })).execute();
      await trx.deleteFrom('node_meta').where('key', '=', 'health_write_probe').execute();
    });
    writeFailures.delete(engine);
    return undefined;
  } catch (error) {
    const unavailable = unavailabilityOf(error);
    const next = { problem: unavailable ? problemOf(unavailable) : failure.problem, since: failure.since, probedAt: now };
    writeFailures.set(engine, next);
    return next;
  }
}

async function checkDisk(folder: string, lowBelowBytes: number): Promise<DiskCheck | null> {
  try {
    const fs = await statfs(folder);
    const freeBytes = fs.bavail * fs.bsize;
    return { status: freeBytes < lowBelowBytes ? 'degraded' : 'ok', freeBytes, totalBytes: fs.blocks * fs.bsize, lowBelowBytes };
  } catch {
    // The folder gone or unreadable: the database check tells what that means for selling.
    return null;
  }
}

async function checkSync(engine: Engine, sources: NodeHealthSources): Promise<SyncCheck> {
  const s = await sources.syncStatus!();
  const now = engine.clock.now();
  const unsent = s.oldestPendingAt !== null && now - s.oldestPendingAt > SYNC_BEHIND_MS;
  const stale = now - (s.lastPullAt ?? sources.startedAt) > SYNC_BEHIND_MS;
  // A store central revoked refuses every sale, and one central refuses (a wrong address, a
  // credential it does not know) never catches up: both are told at once, not after 15 minutes.
  const refused = s.link === 'down' && s.refused;
  const problem = s.unpaired ? 'unpaired_at_central' : refused ? 'central_refused' : unsent ? 'events_unsent' : stale ? 'pull_stale' : null;
  return {
    status: problem === null ? 'ok' : 'degraded',
    problem,
    link: s.link,
    pending: s.pending,
    oldestPendingAt: s.oldestPendingAt,
    rejected: s.rejected,
    lastPushAt: s.lastPushAt,
    lastPullAt: s.lastPullAt,
    behindAfterMs: SYNC_BEHIND_MS,
  };
}

/** The SQLite file's folder (read once per engine); null on PostgreSQL or an in-memory database. */
async function databaseFolder(engine: Engine): Promise<string | null> {
  if (databaseFolders.has(engine)) return databaseFolders.get(engine)!;
  let folder: string | null = null;
  if (engine.dialect === 'sqlite') {
    const rows = (await sql<{ name: string; file: string }>`pragma database_list`.execute(engine.db)).rows;
    const file = rows.find((row) => row.name === 'main')?.file;
    folder = file ? dirname(file) : null;
  }
  databaseFolders.set(engine, folder);
  return folder;
}

function problemOf(unavailable: Unavailability): DatabaseProblem {
  if (unavailable.kind === 'database') return 'unreachable';
  if (unavailable.cause.startsWith('SQLITE_FULL') || unavailable.cause === 'SQLITE_IOERR_SHMSIZE') return 'disk_full';
  if (unavailable.cause.startsWith('SQLITE_READONLY')) return 'read_only';
  return 'io_error';
}
