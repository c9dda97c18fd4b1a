import { isServiceError } from '../../../shared/errors';
import { noteDatabaseFailure } from '../../chain-health/node-health';
import type { Engine } from '../../engine';
import { unavailabilityOf } from '../../storage/unavailable';
import { readPendingEvents, recordVerdicts, summariseOutbox } from '../outbox/pending-events';
import { type CustomerRows, type PullResponse, PUSH_EVENTS_MAX, type PushRequest, type PushResponse, type SnapshotPageOnTheWire, type SnapshotRequest, rowTableOf } from '../protocol';
import { forgetOldPages } from '../../storage/forget-old-pages';
import { getMeta, setMeta } from '../../storage/node-meta';
import { applyPulledChanges } from './apply-pulled-changes';
import { applySnapshotPage } from './apply-snapshot';
import { followCentralAfterRestore } from './follow-central-after-restore';
import { takeMovedIds } from './moved-row-ids';
import { nextTableToAsk, SNAPSHOT_TABLES, tablesCountedEmpty } from './snapshot-tables';

/** How a store reaches central: HTTP in production, a lossy in-memory network in the simulation. */
export interface SyncTransport {
  push(request: PushRequest): Promise<PushResponse>;
  pull(after: number, limit: number): Promise<PullResponse>;
  /** A page of central's snapshot (a first sync). A link without it first-syncs by replaying the log. */
  snapshot?(request: SnapshotRequest): Promise<SnapshotPageOnTheWire>;
  /** One customer's rows now, for a counter waiting during a first sync; central's refusals throw as ServiceErrors. */
  customer?(identification: string): Promise<CustomerRows>;
}

/** Rows per snapshot page: one bulk-insert transaction each. */
export const SNAPSHOT_PAGE = 10_000;

/** Once this table is in (or passed, counted empty), the chain's customers and balances are here: check-in opens. */
const ESSENTIALS_END = SNAPSHOT_TABLES.indexOf('ledger_entries');

/** Where a first sync's snapshot stands (node_meta sync_snapshot), saved with each page it wrote. */
interface SnapshotPosition {
  /** Central's log head before the first page: the log is pulled from here once the snapshot is in. */
  cursor: number;
  table: number;
  after: number;
  rows: number;
  estimate: number;
  /** Tables central counted empty at the cursor, not asked (absent: a central that sends no counts, or a position saved before them). */
  empty?: string[];
  done: boolean;
}

/**
 * Events per push: a backlog of offline sales drains in pages central applies in bulk, as many as
 * central takes (fewer round trips over a slow link; 1,000 applied ~8 % faster than 500 at central
 * in bench/sync.ts, on SQLite and PostgreSQL alike).
 */
export const PUSH_PAGE = PUSH_EVENTS_MAX;

export interface SyncClientOptions {
  vendorId: number;
  storeId: number;
  pushPage?: number;
  pullPage?: number;
  snapshotPage?: number;
  /** Called after a pulled page commits, with the sessions of this store it changed (queue updates). */
  onPulledSessions?: (sessionIds: number[]) => void;
  /** After each pulled page: how far the cursor is towards central's head (first-sync progress). */
  onProgress?: (progress: { cursor: number; head: number }) => void;
  /** After every round of the loop, successful or not (status watchers compare and publish). */
  onRoundEnd?: () => void;
  /** After the store followed central past events central took from another copy of it (restored from a backup, or a second machine). */
  onFollowedCentral?: (diverged: { node_seq: number; last_seq: number }) => void;
}

export interface SyncRoundResult {
  pushed: number;
  pulled: number;
}

/** A pulled change that wipes who a person is: their erasure, or their leaving the program. */
function wipesPerson(change: PullResponse['changes'][number]): boolean {
  if (change.tbl === 'users') return change.data['status'] === 'deleted';
  return change.tbl === 'user_vendors' && change.data['removed_at'] !== null && change.data['removed_at'] !== undefined;
}

/**
 * A paired store's side of sync: push the outbox in node_seq order, then pull central's log after
 * the cursor, until both are drained. Each step is idempotent, so a lost reply or a crash anywhere
 * only means the step is repeated (docs/sync.md).
 */
export class SyncClient {
  lastPushAt: number | null = null;
  lastPullAt: number | null = null;
  lastError: string | null = null;
  /** The last round failed on central's answer about this store (4xx: revoked, not a central…), not on central being away. */
  refused = false;
  head = 0;
  /** First sync: rows received so far and when it began (for the ETA). */
  firstSyncRows = 0;
  firstSyncStartedAt: number | null = null;
  /** The snapshot's position as last saved (null: no snapshot taken or under way), and its rows when this process began. */
  #snapshot: SnapshotPosition | null = null;
  #snapshotRowsAtStart: number | null = null;
  #stopped = false;
  /** A pulled page wiped a person (an erasure, a departure): the WAL is emptied when the pull ends. */
  #wiped = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #recordedLink: string | null = null;

  constructor(
    readonly engine: Engine,
    readonly transport: SyncTransport,
    readonly options: SyncClientOptions,
  ) {
    // The counter's use cases reach central through the engine (they know nothing of sync).
    engine.centralLink.customerFromCentral = (identification) => this.fetchCustomer(identification);
    engine.centralLink.storeId = options.storeId;
  }

  /** One full round; throws (and marks the link down) when central cannot be reached. */
  async syncOnce(): Promise<SyncRoundResult> {
    try {
      const pushed = await this.pushAll();
      const pulled = await this.pullAll();
      this.engine.centralLink.reachable = true;
      this.lastError = null;
      this.refused = false;
      await this.#recordLink();
      return { pushed, pulled };
    } catch (error) {
      // This store's own file or disk failed (full, read-only): central answered, so the link is
      // not what to fix; /health is told as a failed sale tells it (the disk may fill with no sale).
      const local = unavailabilityOf(error);
      if (local?.kind === 'storage') noteDatabaseFailure(this.engine, error);
      else this.engine.centralLink.reachable = false;
      this.lastError = local?.kind === 'storage' ? `this store cannot write its own database (${local.cause}): ${local.advice}` : (error as Error).message;
      this.refused = isRefusal(error);
      await this.#recordLink().catch(() => undefined);
      if ((error as { code?: unknown }).code === 'node_revoked' && !this.engine.centralLink.unpaired) {
        this.engine.centralLink.unpaired = true;
        await setMeta(this.engine.db, 'sync_unpaired_at_central', String(this.engine.clock.now()));
      }
      throw error;
    }
  }

  /**
   * The link and last error as node_meta `sync_link` (`up` or `down`, then the error), written when
   * they change: `punchcard sync status` reads the data folder, not this process.
   */
  async #recordLink(): Promise<void> {
    const recorded = JSON.stringify([this.engine.centralLink.reachable ? 'up' : 'down', this.lastError]);
    if (recorded === this.#recordedLink) return;
    await setMeta(this.engine.db, 'sync_link', recorded);
    this.#recordedLink = recorded;
  }

  async pushAll(): Promise<number> {
    let pushed = 0;
    let followed = false;
    for (;;) {
      // A stop ends the round after the page under way: a backlog of a day offline is sent by the
      // next start, not by a shutdown that would outlast the service manager's patience.
      if (this.#stopped) return pushed;
      const events = await readPendingEvents(this.engine, this.options.pushPage ?? PUSH_PAGE);
      if (events.length === 0) return pushed;
      const reply = await this.transport.push({ events });
      this.engine.centralLink.reachable = true;
      await this.engine.db.transaction().execute(async (trx) => {
        // Events a lost copy sent renumbered, some of their rows moved: this store's copies move alike.
        await takeMovedIds(trx, this.engine, reply.results);
        await recordVerdicts(trx, this.engine, reply.results);
      });
      this.lastPushAt = this.engine.clock.now();
      await setMeta(this.engine.db, 'sync_last_push_at', String(this.lastPushAt));
      pushed += reply.results.length;
      if (reply.diverged) {
        // Restored from a backup (follow-central-after-restore.ts); once a round: should central
        // report it again at once, the next round starts from what it says then.
        if (followed) throw new Error(`central again took other events than this store's from event ${reply.diverged.node_seq}`);
        await followCentralAfterRestore(this.engine, events, reply.diverged);
        this.options.onFollowedCentral?.(reply.diverged);
        followed = true;
        continue;
      }
      if (reply.resume_from !== null && reply.resume_from < events[0]!.node_seq) {
        // Central lost events it had acknowledged (restored from a backup): this store cannot resend them.
        throw new Error(`central asks to resume from event ${reply.resume_from}, which it had already acknowledged; pair this store again`);
      }
      if (reply.results.length === 0 && reply.resume_from === null) return pushed;
    }
  }

  async pullAll(): Promise<number> {
    let pulled = await this.snapshotAll();
    for (;;) {
      if (this.#stopped) return pulled;
      const cursor = Number((await getMeta(this.engine.db, 'sync_cursor')) ?? '0');
      const page = await this.transport.pull(cursor, this.options.pullPage ?? 500);
      this.engine.centralLink.reachable = true;
      if (page.cursor < cursor) throw new Error('central answered with a cursor behind this store');
      await this.engine.db.transaction().execute(async (trx) => {
        await applyPulledChanges(trx, this.engine, this.options.vendorId, page.changes, page.cursor);
        // Central's head as last heard, for `punchcard sync status` (which reads the folder).
        await setMeta(trx, 'sync_head', String(page.head));
      });
      this.head = page.head;
      this.firstSyncStartedAt ??= this.engine.clock.now();
      if (!this.engine.centralLink.firstSyncDone) this.firstSyncRows += page.changes.length;
      this.options.onProgress?.({ cursor: page.cursor, head: page.head });
      if (!page.more && (await getMeta(this.engine.db, 'sync_first_sync_done')) === null) {
        await setMeta(this.engine.db, 'sync_first_sync_done', String(this.engine.clock.now()));
      }
      if (!page.more) this.engine.centralLink.firstSyncDone = true;
      this.lastPullAt = this.engine.clock.now();
      await setMeta(this.engine.db, 'sync_last_pull_at', String(this.lastPullAt));
      pulled += page.changes.length;
      const sessions = page.changes.filter((c) => c.tbl === 'pos_sessions' && c.data['store_id'] === this.options.storeId).map((c) => Number(c.data['id']));
      if (sessions.length > 0) this.options.onPulledSessions?.(sessions);
      // An erasure (or a departure from the program) applied here wiped the person's rows: the WAL
      // still holds their pages as they were; emptied once the pull is done (forget-old-pages.ts).
      if (page.changes.some(wipesPerson)) this.#wiped = true;
      if (!page.more) {
        if (this.#wiped) {
          this.#wiped = false;
          await forgetOldPages(this.engine);
        }
        return pulled;
      }
    }
  }

  /**
   * A first sync's snapshot (docs/sync.md, "First sync"): a store that has nothing of central's yet
   * reads the vendor's rows table by table in pages, each written in one transaction with its
   * position, so a crash resumes where it stopped. After the ledger, check-in opens; after the
   * last table, the log is pulled from the cursor taken before the first page. A store whose first
   * sync began by replaying the log (or whose link has no snapshot) goes on replaying it.
   */
  async snapshotAll(): Promise<number> {
    if (!this.transport.snapshot) return 0;
    const db = this.engine.db;
    const saved = await getMeta(db, 'sync_snapshot');
    let position: SnapshotPosition | null = saved === null ? null : (JSON.parse(saved) as SnapshotPosition);
    if (position === null && ((await getMeta(db, 'sync_first_sync_done')) !== null || (await getMeta(db, 'sync_cursor')) !== null)) return 0;
    if (position?.done) return 0;
    this.#snapshot = position;
    this.#snapshotRowsAtStart ??= position?.rows ?? 0;
    this.firstSyncStartedAt ??= this.engine.clock.now();
    let written = 0;
    const limit = this.options.snapshotPage ?? SNAPSHOT_PAGE;
    const fetchPage = (request: SnapshotRequest) => {
      const reply = this.transport.snapshot!(request);
      reply.catch(() => undefined); // awaited below; a prefetch left behind by a failure is not an unhandled rejection
      return reply;
    };
    let ahead: { request: SnapshotRequest; reply: Promise<SnapshotPageOnTheWire> } | null = null;
    for (;;) {
      if (this.#stopped) return written;
      const table = SNAPSHOT_TABLES[position?.table ?? 0]!;
      const request: SnapshotRequest = { table, after: position?.after ?? 0, limit, estimate: position === null };
      const fetched: Promise<SnapshotPageOnTheWire> = ahead && ahead.request.table === table && ahead.request.after === request.after ? ahead.reply : fetchPage(request);
      const page = await fetched;
      this.engine.centralLink.reachable = true;
      if (page.table !== table || (page.rows.length > 0 && page.last <= (position?.after ?? 0))) throw new Error('central answered a snapshot page that was not asked for');
      // The first page's counts, saved with the position: the tables empty at the cursor are never
      // asked (docs/sync.md, "Tables empty at the cursor"); a central that sends none has every table asked.
      const current: SnapshotPosition = position ?? { cursor: page.head, table: 0, after: 0, rows: 0, estimate: page.estimate ?? 0, empty: tablesCountedEmpty(page.counts), done: false };
      const nextTable = nextTableToAsk(current.table, current.empty);
      // The next page travels while this one is written (central reads and the store writes at once),
      // the next table's first page too.
      const following = SNAPSHOT_TABLES[nextTable];
      const nextRequest: SnapshotRequest | null = page.more && page.rows.length > 0 ? { table, after: page.last, limit } : !page.more && following ? { table: following, after: 0, limit } : null;
      ahead = nextRequest ? { request: nextRequest, reply: fetchPage(nextRequest) } : null;
      // Each answered page moves the saved position on (past the tables counted empty too), so a
      // link failing after every request still advances: no empty page is left to ask again.
      const next: SnapshotPosition = page.more
        ? { ...current, after: page.last, rows: current.rows + page.rows.length }
        : { ...current, table: nextTable, after: 0, rows: current.rows + page.rows.length, done: nextTable >= SNAPSHOT_TABLES.length };
      const essentialsIn = !page.more && current.table <= ESSENTIALS_END && nextTable > ESSENTIALS_END;
      await db.transaction().execute(async (trx) => {
        await applySnapshotPage(trx, this.engine, this.options.vendorId, table, rowTableOf(page));
        await setMeta(trx, 'sync_snapshot', JSON.stringify(next));
        if (essentialsIn) await setMeta(trx, 'sync_first_sync_ready', String(this.engine.clock.now()));
        // The whole snapshot is in: the log resumes from the cursor taken before its first page.
        if (next.done) await setMeta(trx, 'sync_cursor', String(next.cursor));
      });
      if (essentialsIn) this.engine.centralLink.firstSyncDone = true;
      position = next;
      this.#snapshot = next;
      this.head = Math.max(this.head, page.head);
      written += page.rows.length;
      this.options.onProgress?.({ cursor: 0, head: page.head });
      if (next.done) return written;
    }
  }

  /**
   * A customer the first sync has not brought yet, asked of central for a waiting counter (docs/sync.md,
   * "A customer before their turn"): their rows are written as snapshot rows are, in one transaction.
   * False when that cannot be done now (no snapshot under way or not yet past the program's own
   * tables, or central unreachable); central's verdict on an identification it refuses is thrown.
   */
  async fetchCustomer(identification: string): Promise<boolean> {
    const position = this.#snapshot;
    if (!this.transport.customer || !position || position.done || position.table < SNAPSHOT_TABLES.indexOf('users')) return false;
    let reply: CustomerRows;
    try {
      reply = await this.transport.customer(identification);
    } catch (error) {
      if (isServiceError(error)) throw error;
      return false;
    }
    await this.engine.db.transaction().execute(async (trx) => {
      for (const { table, rows } of reply.tables) await applySnapshotPage(trx, this.engine, this.options.vendorId, table, rowTableOf({ rows }));
    });
    return true;
  }

  /**
   * Runs rounds until stopped: right away when poked, else every `idleMs`, and after a failure at
   * `reconnectDelay` (docs/sync.md, "Link and status"). `schedule` sets the pause's timer (tests
   * record the delays instead of waiting them out) and returns what cancels it.
   */
  start(options: { idleMs?: number; maxBackoffMs?: number; random?: () => number; schedule?: (resume: () => void, ms: number) => () => void } = {}): void {
    const idle = options.idleMs ?? 5_000;
    const cap = options.maxBackoffMs ?? RECONNECT_CAP_MS;
    const random = options.random ?? Math.random;
    const schedule =
      options.schedule ??
      ((resume: () => void, ms: number) => {
        const timer = setTimeout(resume, ms);
        return () => clearTimeout(timer);
      });
    let failures = 0;
    this.#loop = (async () => {
      while (!this.#stopped) {
        try {
          await this.syncOnce();
          failures = 0;
        } catch {
          failures += 1;
        }
        this.options.onRoundEnd?.();
        if (this.#stopped) break;
        const wait = failures === 0 ? idle : reconnectDelay(failures, random, cap);
        await new Promise<void>((resolve) => {
          const cancel = schedule(resolve, wait);
          this.#wake = () => {
            cancel();
            resolve();
          };
        });
        this.#wake = null;
      }
    })();
  }

  /** Central said "pull now", or a local sale wants pushing: run a round as soon as the current one ends. */
  poke(): void {
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
    delete this.engine.centralLink.customerFromCentral;
  }

  async status(): Promise<SyncStatusSnapshot> {
    const outbox = await summariseOutbox(this.engine.db);
    const cursor = Number((await getMeta(this.engine.db, 'sync_cursor')) ?? '0');
    return {
      link: this.engine.centralLink.reachable ? 'up' : 'down',
      pending: outbox.pending,
      oldestPendingAt: outbox.oldestPendingAt,
      rejected: outbox.rejected,
      lastPushAt: this.lastPushAt ?? numberOrNull(await getMeta(this.engine.db, 'sync_last_push_at')),
      lastPullAt: this.lastPullAt ?? numberOrNull(await getMeta(this.engine.db, 'sync_last_pull_at')),
      cursor,
      head: Math.max(this.head, cursor),
      lastError: this.lastError,
      refused: this.refused,
      unpaired: this.engine.centralLink.unpaired === true,
      firstSync: await this.firstSyncState(cursor),
    };
  }

  async firstSyncState(cursor: number): Promise<SyncStatusSnapshot['firstSync']> {
    const done = (await getMeta(this.engine.db, 'sync_first_sync_done')) !== null;
    const ready = done || (await getMeta(this.engine.db, 'sync_first_sync_ready')) !== null;
    const elapsed = this.firstSyncStartedAt === null ? 0 : this.engine.clock.now() - this.firstSyncStartedAt;
    // A node started after its first sync reads the saved position once: its rows stay what they were.
    if (done && this.#snapshot === null) {
      const saved = await getMeta(this.engine.db, 'sync_snapshot');
      if (saved !== null) this.#snapshot = JSON.parse(saved) as SnapshotPosition;
    }
    const snapshot = this.#snapshot;
    if (!done && snapshot && !snapshot.done) {
      // Rows written against central's estimate; the ETA from this process's own rate (a resumed snapshot starts part-way).
      const progress = firstSyncShare({ done, snapshot, cursor, head: this.head });
      const etaSeconds = firstSyncEtaSeconds({ elapsedMs: elapsed, rows: snapshot.rows - (this.#snapshotRowsAtStart ?? 0), remaining: snapshot.estimate - snapshot.rows, total: snapshot.estimate });
      return { done, ready, progress, rows: snapshot.rows, etaSeconds };
    }
    const progress = firstSyncShare({ done, snapshot: null, cursor, head: Math.max(this.head, cursor) });
    // By the log: the changes passed against those still ahead of the cursor.
    const head = Math.max(this.head, cursor);
    const etaSeconds = done || progress === 0 ? null : firstSyncEtaSeconds({ elapsedMs: elapsed, rows: cursor, remaining: head - cursor, total: head });
    // Once done, the snapshot's rows (saved with it, the same in every later process), or the log's for a first sync by the log.
    const rows = snapshot ? snapshot.rows + (done ? 0 : this.firstSyncRows) : this.firstSyncRows;
    return { done, ready, progress, rows, etaSeconds };
  }
}

/** Rows a first sync must have received (in this process) before it tells how long it has left. */
export const ETA_MIN_ROWS = 5_000;
/** And time it must have taken: the first requests' cost (a new connection, the estimate) is no rate. */
export const ETA_MIN_MS = 2_000;

/**
 * Seconds a first sync has left, from this process's rate so far; null until there is a rate to
 * tell it from: some seconds and thousands of rows (and 1% of the snapshot) in. A small program's
 * first sync is a round trip per table, mostly empty ones, whatever its rows: a rate from its first
 * rows said "about 10s left" for 9 rows; it says nothing, and is done in about a second.
 */
export function firstSyncEtaSeconds(measured: { elapsedMs: number; rows: number; remaining: number; total: number }): number | null {
  const { elapsedMs, rows, remaining, total } = measured;
  if (elapsedMs < ETA_MIN_MS || rows < ETA_MIN_ROWS || rows < total / 100) return null;
  return Math.round(Math.max(0, remaining) / (rows / elapsedMs) / 1000);
}

/**
 * The longest pause between rounds while central does not answer. A store notices central is back
 * within it (or at once, when the poke stream reconnects); at one request per store every 4–8 s a
 * central that is down is not hammered. It was 60 s: stores stayed `link: down`, refusing sales
 * above the offline caps, for up to a minute after central returned.
 */
export const RECONNECT_CAP_MS = 8_000;

/**
 * The pause after the `failures`-th failed round in a row: doubling from 0.5–1 s up to the cap, each
 * drawn from the upper half of its step (equal jitter), so stores that lost central together do not
 * return together, and none retries sooner than half its step.
 */
export function reconnectDelay(failures: number, random: () => number, cap = RECONNECT_CAP_MS): number {
  const step = Math.min(cap, 1_000 * 2 ** Math.max(0, failures - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * A failure that waiting will not end: central (or whatever answers at its address) refused the
 * request with a 4xx — a revoked credential, an address that is no central. Central out of reach,
 * a 5xx (503 while its database is away), a timeout (408) or a rate limit (429) pass by themselves.
 */
function isRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export interface SyncStatusSnapshot {
  link: 'up' | 'down';
  pending: number;
  oldestPendingAt: number | null;
  rejected: number;
  lastPushAt: number | null;
  lastPullAt: number | null;
  cursor: number;
  head: number;
  lastError: string | null;
  /** The last round failed on central's refusal of this store (it will not pass by waiting), not on central being away. */
  refused: boolean;
  /** Central revoked this node: it takes no check-ins or sales until paired again. */
  unpaired: boolean;
  /** `ready`: the customers and balances are in, check-in works (the snapshot is past the ledger). */
  firstSync: { done: boolean; ready: boolean; progress: number; rows: number; etaSeconds: number | null };
}

/**
 * On a paired store's start: has its first sync finished (until it has, unknown customers may be on
 * their way), and has central revoked it (then it sells nothing)?
 */
export async function loadFirstSyncState(engine: Engine): Promise<void> {
  engine.centralLink.firstSyncDone = (await getMeta(engine.db, 'sync_first_sync_done')) !== null || (await getMeta(engine.db, 'sync_first_sync_ready')) !== null;
  engine.centralLink.unpaired = (await getMeta(engine.db, 'sync_unpaired_at_central')) !== null;
}

function numberOrNull(value: string | null): number | null {
  return value === null ? null : Number(value);
}

/**
 * How far a store's first sync is, 0 to 1: the snapshot's rows against central's estimate while it
 * is under way (never 1 before it is done), else the log's cursor against central's head. The
 * running node's status and `punchcard sync status` (which reads the folder) count it alike.
 */
export function firstSyncShare(state: { done: boolean; snapshot: Pick<SnapshotPosition, 'rows' | 'estimate' | 'done'> | null; cursor: number; head: number }): number {
  const { done, snapshot, cursor, head } = state;
  if (done) return 1;
  if (snapshot && !snapshot.done) return snapshot.estimate > 0 ? Math.min(0.99, snapshot.rows / snapshot.estimate) : 0;
  return head === 0 ? 0 : cursor / head;
}

/** The link as the store's sync loop last recorded it (node_meta `sync_link`); null before its first round. */
export async function readRecordedLink(db: Engine['db']): Promise<{ link: 'up' | 'down'; lastError: string | null } | null> {
  const saved = await getMeta(db, 'sync_link');
  if (saved === null) return null;
  const [link, lastError] = JSON.parse(saved) as ['up' | 'down', string | null];
  return { link, lastError };
}
