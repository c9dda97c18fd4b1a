import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { PushedEvent } from '../protocol';
import { forgetMovedRowsBefore } from './moved-rows';

// Which events central took at which node_seqs of a node (migration 0028). A node_seq at or below
// the node's last is a repeat only if it carries the same event: a store restored from a backup
// numbers its new sales with node_seqs central took for the sales the lost copy made after the
// backup. One row per push, its first node_seq and its events' ids: a backlog page of 1,000 events
// costs one row (a row per event cost ~1.5 ms of a page's ~70 ms on SQLite, ~4 ms on PostgreSQL).

/**
 * How long a node's event ids are kept, counted back from its newest push: a store restored from a
 * backup older than that can no longer be told from a resend (docs/sync.md, "A store restored
 * from a backup"). A resend comes within minutes; a store keeps an answered event 30 days.
 */
export const KEEP_EVENT_IDS_MS = 90 * 24 * 3600_000;

/** The ids of the events a push took (applied or refused: consecutive node_seqs), as one row. */
export async function rememberEventIds(trx: Kysely<DB>, engine: Engine, nodeId: number, events: readonly PushedEvent[]): Promise<void> {
  if (events.length === 0) return;
  await trx
    .insertInto('sync_event_ids')
    .values({ node_id: nodeId, first_seq: events[0]!.node_seq, event_ids: JSON.stringify(events.map((e) => e.event_id)), answered_at: engine.clock.now() })
    .execute();
}

/** How central took a page's repeated events: where the store's events part from its own, and which it took at other numbers. */
export interface RepeatedEvents {
  /** The first repeated event (node_seq order) central took neither at its node_seq nor elsewhere; null when none. */
  divergedAt: number | null;
  /** The store's node_seq → central's, for repeated events central took at another node_seq. */
  takenElsewhere: Map<number, number>;
}

/**
 * Compares repeated events with what central took at their node_seqs (kept ids only: see
 * KEEP_EVENT_IDS_MS). An event central took at a later number is no divergence: a lost copy of a
 * store restored from a backup followed central itself and sent it renumbered, and a folder
 * restored from the same backup sends it again at its first number (docs/sync.md, "A store
 * restored from a backup"). Central's later numbers are read only once an event differs.
 */
export async function compareRepeatedEvents(trx: Kysely<DB>, nodeId: number, repeated: readonly PushedEvent[], lastSeq: number): Promise<RepeatedEvents> {
  const takenElsewhere = new Map<number, number>();
  if (repeated.length === 0) return { divergedAt: null, takenElsewhere };
  const idAt = await eventIdsBetween(trx, nodeId, repeated[0]!.node_seq, repeated.at(-1)!.node_seq);
  const differs = repeated.findIndex((event) => idAt.has(event.node_seq) && idAt.get(event.node_seq) !== event.event_id);
  if (differs < 0) return { divergedAt: null, takenElsewhere };
  const seqOf = new Map<string, number>();
  for (const [seq, id] of await eventIdsBetween(trx, nodeId, repeated[differs]!.node_seq, lastSeq)) seqOf.set(id, seq);
  for (const event of repeated.slice(differs)) {
    const id = idAt.get(event.node_seq);
    if (id === undefined || id === event.event_id) continue;
    const elsewhere = seqOf.get(event.event_id);
    if (elsewhere === undefined) return { divergedAt: event.node_seq, takenElsewhere };
    takenElsewhere.set(event.node_seq, elsewhere);
  }
  return { divergedAt: null, takenElsewhere };
}

/** The event id central keeps for each node_seq from `from` to `to`: the rows from the one holding `from` on. */
async function eventIdsBetween(trx: Kysely<DB>, nodeId: number, from: number, to: number): Promise<Map<number, string>> {
  const rows = await trx
    .selectFrom('sync_event_ids')
    .select(['first_seq', 'event_ids'])
    .where('node_id', '=', nodeId)
    .where('first_seq', '<=', to)
    .where('first_seq', '>=', (eb) =>
      eb
        .selectFrom('sync_event_ids')
        .select((inner) => inner.fn.coalesce(inner.fn.max('first_seq'), inner.lit(0)).as('start'))
        .where('node_id', '=', nodeId)
        .where('first_seq', '<=', from),
    )
    .execute();
  const idAt = new Map<number, string>();
  for (const row of rows) (JSON.parse(row.event_ids) as string[]).forEach((id, i) => idAt.set(Number(row.first_seq) + i, id));
  return idAt;
}

/**
 * Forgets, node by node, the pushes answered more than KEEP_EVENT_IDS_MS before the node's newest:
 * read along the key from the node's oldest to its first one kept, then one range delete.
 * `between` runs after each node (the hourly job lets requests in there); false stops. Returns
 * how many rows went.
 */
export async function forgetOldEventIds(db: Kysely<DB>, between: () => Promise<boolean> = async () => true): Promise<number> {
  let removed = 0;
  for (const node of await db.selectFrom('sync_nodes').select('id').orderBy('id').execute()) {
    const nodeId = Number(node.id);
    const newest = await db.selectFrom('sync_event_ids').select('answered_at').where('node_id', '=', nodeId).orderBy('first_seq', 'desc').limit(1).executeTakeFirst();
    if (!newest) continue;
    const firstKept = await db
      .selectFrom('sync_event_ids')
      .select('first_seq')
      .where('node_id', '=', nodeId)
      .where('answered_at', '>=', Number(newest.answered_at) - KEEP_EVENT_IDS_MS)
      .orderBy('first_seq')
      .limit(1)
      .executeTakeFirstOrThrow();
    const result = await db.deleteFrom('sync_event_ids').where('node_id', '=', nodeId).where('first_seq', '<', Number(firstKept.first_seq)).executeTakeFirst();
    removed += Number(result.numDeletedRows);
    // Moved rows serve only events central still knows by id.
    await forgetMovedRowsBefore(db, nodeId, Number(newest.answered_at) - KEEP_EVENT_IDS_MS);
    if (!(await between())) break;
  }
  return removed;
}
