import type { Kysely } from 'kysely';
import { type Engine, transact } from '../engine';
import type { DB } from '../storage/schema';
import { nodeOfId } from '../storage/ids';
import { recordCheckInEvent } from '../webhooks/events';
import { publishAll, sessionEvent } from './pos-session';

/** A check-in still open this long after it was made is closed by the node (a walk-away at a kiosk). */
export const STALE_SESSION_HOURS = 12;
const BATCH = 200;

/**
 * Closes check-ins nobody served or closed (reason `expired`): a customer who checked in at a kiosk
 * and left stayed in every counter's queue for good, and the queue (read whole after every
 * reconnection) grew with them. Each node closes only the sessions it opened (a chain's others are
 * theirs to close; their closes arrive by sync). Screens hear of each close; webhooks get
 * `check_in.closed`. `between` runs after each batch (the node's jobs let requests in there).
 */
export async function closeStaleSessions(engine: Engine, between?: () => Promise<boolean>): Promise<number> {
  const cutoff = engine.clock.now() - STALE_SESSION_HOURS * 3_600_000;
  const stale = await staleSessionsQuery(engine.db, cutoff).execute();
  const own = stale.filter((session) => nodeOfId(Number(session.id)) === engine.nodeId);
  let closed = 0;
  for (let start = 0; start < own.length; start += BATCH) {
    const batch = own.slice(start, start + BATCH);
    const events = await transact(engine, async (trx) => {
      const now = engine.clock.now();
      const done = [];
      for (const session of batch) {
        // Only while still open: a close or an order since the read has announced it already.
        const changed = await trx.updateTable('pos_sessions').set({ status: 'closed', closed_at: now, closed_reason: 'expired', updated_at: now }).where('id', '=', session.id).where('status', '=', 'active').returning('id').execute();
        if (changed.length === 0) continue;
        await recordCheckInEvent(trx, engine, 'check_in.closed', session, { at: now, reason: 'expired' });
        done.push(sessionEvent('session.closed', session, now));
      }
      return done;
    });
    publishAll(engine, events);
    closed += events.length;
    if (between && !(await between())) return closed;
  }
  return closed;
}

/** Open check-ins made before `cutoff`, through the index of open sessions (they are few), never the whole history. Exported for the plan test. */
export const staleSessionsQuery = (db: Kysely<DB>, cutoff: number) => db.selectFrom('pos_sessions').selectAll().where('status', '=', 'active').where('created_at', '<', cutoff);
