import type { FastifyBaseLogger } from 'fastify';
import type { Engine } from '../../core/engine';
import { readRecordedLink, reconnectDelay, SyncClient, type SyncStatusSnapshot } from '../../core/sync/store/sync-client';
import { toIso } from '../../shared/time';
import { clockIsOff } from '../../shared/clock-offset';
import type { CentralAlignedClock } from './central-aligned-clock';
import { CentralClock } from './central-clock';
import { httpTransport, UNREACHABLE } from './http-transport';
import type { StorePairing } from './pairing-file';

/**
 * GET /sync/status's body, and `punchcard sync status`'s, where nothing syncs (a standalone or
 * unpaired node): the paired fields, empty. Link `none`: `down` would read as a paired store offline.
 */
export const NOT_PAIRED_STATUS = {
  paired: false,
  central: null,
  node_id: null,
  store: null,
  store_name: null,
  link: 'none',
  pending: 0,
  oldest_pending_at: null,
  rejected: 0,
  last_push_at: null,
  last_pull_at: null,
  cursor: 0,
  cursor_lag: 0,
  first_sync: { done: false, ready: false, progress: 0, rows: 0, eta_seconds: null },
  last_error: null,
  clock_offset_seconds: null,
} as const;

export interface StoreSync {
  pairing: StorePairing;
  client: SyncClient;
  /** GET /sync/status's body. */
  status(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * A paired store's sync runtime: the client loop (push, then pull; backoff while central is down),
 * a long-lived stream from central that says "pull now", and a poke after every local sale so it
 * leaves the store at once.
 */
export async function startStoreSync(engine: Engine, pairing: StorePairing, logger: FastifyBaseLogger | undefined, aligned: CentralAlignedClock): Promise<StoreSync> {
  // Measured on the machine's clock: the engine's may already be following central's.
  const centralClock = new CentralClock(() => aligned.machine.now(), (offsetMs) => aligned.observe(offsetMs));
  const client = new SyncClient(engine, httpTransport(pairing.central, pairing.credential, centralClock), {
    vendorId: pairing.vendor_id,
    storeId: pairing.store_id,
    onPulledSessions: (ids) => void publishPulledSessions(engine, pairing.store_id, ids),
    onProgress: () => void announceStatusChange(),
    onRoundEnd: () => void announceStatusChange(),
    // Nothing is lost (its sales are renumbered and sent), but a second machine running as this
    // node would go on doing it: the operator must hear of it (docs/sync.md, "A store restored from a backup").
    onFollowedCentral: (diverged) =>
      logger?.warn(
        { diverged_at: diverged.node_seq, central_last: diverged.last_seq },
        `central holds other sales of this node from event ${diverged.node_seq}: this folder was restored from a backup, or another machine runs as this node (stop one); this store's unsent sales are renumbered after ${diverged.last_seq} and sent`,
      ),
  });
  // Screens learn of status changes from the event stream (sync.changed) instead of polling.
  let lastAnnounced = '';
  let lastLink: string | null = null;
  // An outage as the log tells it when central returns: since when (central's last answer, as the
  // database recorded it), and how many changes waited at most meanwhile (the round that announces
  // the return has already sent them, so its own pending count says nothing of the outage). One the
  // previous process left open (stopped offline) is this one's to tell.
  let outage = await outageLeftOpen(engine, client);
  let clockWasOff = false;
  const announceStatusChange = async () => {
    const s = await client.status().catch(() => null);
    if (!s) return;
    // The node's log tells when the store went offline and came back (what staff ask afterwards).
    // Central out of reach is a warning (it comes back). Central refusing this store's sync (the
    // client's `refused`, as /health's central_refused: an address that is no central, a log behind
    // this store after a restore) and any other failure of a round (central's own error, this
    // store's) are errors someone must act on, said each time the error changes.
    const down = s.link === 'down' && s.lastError !== null;
    const refused = down && s.refused;
    const failing = down && !s.refused && !s.lastError!.startsWith(UNREACHABLE);
    const link = s.unpaired ? 'unpaired' : refused ? `refused:${s.lastError}` : failing ? `failing:${s.lastError}` : s.link;
    if (link !== lastLink) {
      // Revoked, the store does not sell offline: every check-in and sale is refused (409).
      if (s.unpaired) logger?.error({ last_error: s.lastError, pending: s.pending }, 'central unpaired this store node: it takes no check-ins or sales until it is paired again (stop it, `punchcard unpair`, then pair with a new code)');
      else if (refused) logger?.error({ last_error: s.lastError, pending: s.pending }, 'central refused this store\'s sync: the store sells offline until this is fixed (see last_error)');
      else if (failing) logger?.error({ last_error: s.lastError, pending: s.pending }, 'this store\'s sync with central fails: it tries again; the store sells offline meanwhile (see last_error)');
      else if (s.link === 'down') logger?.warn({ last_error: s.lastError, pending: s.pending }, 'central unreachable: the store sells offline; changes wait to be sent');
      lastLink = link;
    }
    if (s.link === 'up') {
      if (outage) logger?.info(...reconnected(outage, s.pending));
      outage = null;
    } else {
      outage ??= { since: lastHeard(s), waited: 0 };
      outage.waited = Math.max(outage.waited, s.pending);
    }
    const offset = centralClock.offsetSeconds();
    const clockOff = clockIsOff(offset);
    if (clockOff !== clockWasOff) {
      if (clockOff) logger?.warn({ clock_offset_seconds: offset }, "this computer's clock is off from central's: the store dates what it sells by central's time (as last heard, offline too; after a restart without central, from the last sync's time on until central answers); set the date, time and time zone right");
      else logger?.info({ clock_offset_seconds: offset }, "this computer's clock agrees with central's again: the store dates what it sells by it");
      clockWasOff = clockOff;
    }
    const shown = JSON.stringify([s.link, s.pending, s.rejected, s.firstSync.done, Math.round(s.firstSync.progress * 100), clockOff]);
    if (shown === lastAnnounced) return;
    lastAnnounced = shown;
    engine.events.publish({ type: 'sync.changed', vendorId: pairing.vendor_id, storeId: pairing.store_id, sessionId: null, at: engine.clock.now() });
  };
  const reconnected = ({ since, waited }: Outage, pending: number): [Record<string, number | string | null>, string] => {
    // On the aligned clock, as the stored times are: central's time at both ends once it answered.
    const offlineSeconds = since === null ? null : Math.max(0, Math.round((aligned.now() - since) / 1000));
    const sent = Math.max(0, waited - pending);
    const sinceIso = since === null ? null : toIso(since);
    const after = offlineSeconds === null ? '' : ` after ${durationWords(offlineSeconds)} offline (since ${sinceIso})`;
    const still = pending > 0 ? `; ${pending} still to send` : '';
    return [
      { offline_since: sinceIso, offline_seconds: offlineSeconds, waited: sent + pending, sent, pending },
      `central reachable again${after}: ${sent} ${sent === 1 ? 'change' : 'changes'} that waited sent${still}`,
    ];
  };
  client.start();
  const unsubscribe = engine.events.subscribe(pairing.store_id, (event) => {
    if (event.type !== 'scan.rejected' && event.type !== 'sync.changed') client.poke();
  });
  const stream = listenForPokes(pairing, () => client.poke(), logger);
  return {
    pairing,
    client,
    async status() {
      const s = await client.status();
      return {
        paired: true,
        central: pairing.central,
        node_id: pairing.node_id,
        store: pairing.store_id,
        link: s.link,
        pending: s.pending,
        oldest_pending_at: s.oldestPendingAt === null ? null : toIso(s.oldestPendingAt),
        rejected: s.rejected,
        last_push_at: s.lastPushAt === null ? null : toIso(s.lastPushAt),
        last_pull_at: s.lastPullAt === null ? null : toIso(s.lastPullAt),
        cursor: s.cursor,
        cursor_lag: Math.max(0, s.head - s.cursor),
        first_sync: { done: s.firstSync.done, ready: s.firstSync.ready, progress: Math.round(s.firstSync.progress * 1000) / 10, rows: s.firstSync.rows, eta_seconds: s.firstSync.etaSeconds },
        last_error: s.lastError,
        clock_offset_seconds: centralClock.offsetSeconds(),
      };
    },
    async stop() {
      unsubscribe();
      stream.stop();
      await client.stop();
    },
  };
}

/** An outage not yet told: since central last answered (null: never), and the most changes that waited. */
export interface Outage {
  since: number | null;
  waited: number;
}

/** When central last answered this node: its last push or pull, as the database recorded them. */
function lastHeard(s: Pick<SyncStatusSnapshot, 'lastPushAt' | 'lastPullAt'>): number | null {
  const times = [s.lastPushAt, s.lastPullAt].filter((at): at is number => at !== null);
  return times.length === 0 ? null : Math.max(...times);
}

async function outageLeftOpen(engine: Engine, client: SyncClient): Promise<Outage | null> {
  const [s, recorded] = await Promise.all([client.status(), readRecordedLink(engine.db)]);
  return outageLeftBy(recorded, s);
}

/**
 * The outage a node's previous process left open: its last round had lost central. A restart does
 * not end it: the line of the return counts from central's last answer and the changes waiting now,
 * whether central answers this process's first round or a later one. Changes waiting behind a link
 * last seen up are no outage: a node stopped mid-backlog after central came back (its line already
 * written), or stopped normally just after a sale, has nothing to tell.
 */
export function outageLeftBy(
  recorded: { link: 'up' | 'down' } | null,
  s: Pick<SyncStatusSnapshot, 'lastPushAt' | 'lastPullAt' | 'oldestPendingAt' | 'pending'>,
): Outage | null {
  if (recorded?.link !== 'down') return null;
  return { since: lastHeard(s) ?? s.oldestPendingAt, waited: s.pending };
}

/** "45 s", "12 min", "3 h 5 min": an outage's length as an operator reads it in the log. */
function durationWords(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Sessions pulled for this store (a customer's app check-in at central) reach the store's queue. */
async function publishPulledSessions(engine: Engine, storeId: number, ids: number[]): Promise<void> {
  const rows = await engine.db.selectFrom('pos_sessions').select(['id', 'vendor_id', 'status', 'opened_by']).where('id', 'in', ids).execute();
  for (const row of rows) {
    engine.events.publish({
      type: row.status === 'active' ? 'session.opened' : 'session.closed',
      vendorId: Number(row.vendor_id),
      storeId,
      sessionId: Number(row.id),
      by: row.opened_by,
      at: engine.clock.now(),
    });
  }
}

function listenForPokes(pairing: StorePairing, poke: () => void, logger?: FastifyBaseLogger): { stop(): void } {
  const abort = new AbortController();
  void (async () => {
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        const reply = await fetch(`${pairing.central}/sync/stream`, { headers: { authorization: `Bearer ${pairing.credential}` }, signal: abort.signal });
        if (!reply.ok || !reply.body) throw new Error(`stream answered ${reply.status}`);
        // Central answers again: a round now, not when the loop's backoff ends (up to 8 s later).
        if (failures > 0) poke();
        failures = 0;
        const decoder = new TextDecoder();
        for await (const chunk of reply.body) {
          if (decoder.decode(chunk as Uint8Array, { stream: true }).includes('event: changes')) poke();
        }
      } catch (error) {
        if (abort.signal.aborted) return;
        logger?.debug({ err: error }, 'sync stream down; polling until it returns');
      }
      // The stream ended: central may be gone. A round now tells (and marks the link down at once).
      poke();
      failures += 1;
      // Capped, jittered reconnect, as the loop's: stores that lost central together do not return together.
      const wait = reconnectDelay(failures, Math.random);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return { stop: () => abort.abort() };
}
