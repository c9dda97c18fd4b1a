import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { BelievedBalance, EventVerdict, MovedRowId, PushedEvent, RowChange } from '../protocol';
import { sealLocalChanges } from './seal-local-changes';

/**
 * The outbox's reads go through its partial indexes (migration 0024): the table keeps the events
 * central answered for a month (prune-answered-events.ts), and these want only the few pending or
 * rejected ones. Exported for the plan test.
 */
export const pendingEventsQuery = (db: Kysely<DB>, limit: number) => db.selectFrom('sync_events').selectAll().where('acked_at', 'is', null).orderBy('node_seq').limit(limit);
export const pendingSummaryQuery = (db: Kysely<DB>) =>
  db
    .selectFrom('sync_events')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('acked_at', 'is', null);
const refused = (db: Kysely<DB>) => db.selectFrom('sync_events').where('verdict', '=', 'rejected');
export const rejectedEventsQuery = (db: Kysely<DB>) => refused(db).select((eb) => eb.fn.countAll<number>().as('n'));
export const rejectedEventsPageQuery = (db: Kysely<DB>, limit: number) =>
  refused(db).select(['node_seq', 'event_id', 'type', 'created_at', 'acked_at', 'verdict_code', 'verdict_message']).orderBy('node_seq', 'desc').limit(limit);

/** The oldest events central has not acknowledged, with their captured rows, in node_seq order. */
export async function readPendingEvents(engine: Engine, limit: number): Promise<PushedEvent[]> {
  // Changes written outside a command's transaction (none should be) still travel, as their own event.
  await engine.db.transaction().execute((trx) => sealLocalChanges(trx, engine, 'local.write'));
  const events = await pendingEventsQuery(engine.db, limit).execute();
  if (events.length === 0) return [];
  const seqs = events.map((e) => Number(e.node_seq));
  const changes = await engine.db.selectFrom('sync_changes').selectAll().where('event_seq', 'in', seqs).orderBy('seq').execute();
  const byEvent = new Map<number, RowChange[]>();
  for (const change of changes) {
    const list = byEvent.get(Number(change.event_seq)) ?? [];
    list.push({ tbl: change.tbl, op: change.op === 'delete' ? 'delete' : 'upsert', data: JSON.parse(change.data) as Record<string, unknown> });
    byEvent.set(Number(change.event_seq), list);
  }
  return events.map((e) => {
    const payload = JSON.parse(e.payload) as { believed_available?: BelievedBalance[]; moved_ids?: MovedRowId[] } | null;
    return {
      node_seq: Number(e.node_seq),
      event_id: e.event_id,
      type: e.type,
      offline: e.offline === 1,
      created_at: Number(e.created_at),
      changes: byEvent.get(Number(e.node_seq)) ?? [],
      ...(payload?.believed_available ? { believed_available: payload.believed_available } : {}),
      ...(payload?.moved_ids ? { moved_ids: payload.moved_ids } : {}),
    };
  });
}

/** Stores central's verdicts before anything else happens; the acknowledged rows leave the outbox. */
export async function recordVerdicts(db: Kysely<DB>, engine: Engine, verdicts: EventVerdict[]): Promise<void> {
  const now = engine.clock.now();
  // Applied events (nearly all) in one statement per chunk; each rejection with its own reason.
  const applied = verdicts.filter((v) => v.verdict === 'applied').map((v) => v.node_seq);
  for (let i = 0; i < applied.length; i += 5_000) {
    await db
      .updateTable('sync_events')
      .set({ acked_at: now, verdict: 'applied', verdict_code: null, verdict_message: null })
      .where('node_seq', 'in', applied.slice(i, i + 5_000))
      .where('acked_at', 'is', null)
      .execute();
  }
  for (const v of verdicts.filter((r) => r.verdict !== 'applied')) {
    await db
      .updateTable('sync_events')
      .set({ acked_at: now, verdict: v.verdict, verdict_code: v.code, verdict_message: v.message })
      .where('node_seq', '=', v.node_seq)
      .where('acked_at', 'is', null)
      .execute();
  }
  const seqs = verdicts.map((v) => v.node_seq);
  for (let i = 0; i < seqs.length; i += 5_000) await db.deleteFrom('sync_changes').where('event_seq', 'in', seqs.slice(i, i + 5_000)).execute();
}

export interface OutboxSummary {
  pending: number;
  oldestPendingAt: number | null;
  rejected: number;
}

export async function summariseOutbox(db: Kysely<DB>): Promise<OutboxSummary> {
  const pending = await pendingSummaryQuery(db).executeTakeFirstOrThrow();
  const rejected = await rejectedEventsQuery(db).executeTakeFirstOrThrow();
  return { pending: Number(pending.n), oldestPendingAt: pending.oldest === null ? null : Number(pending.oldest), rejected: Number(rejected.n) };
}

export interface RejectedEvent {
  nodeSeq: number;
  eventId: string;
  type: string;
  createdAt: number;
  refusedAt: number;
  code: string | null;
  message: string | null;
}

/** The events central refused, newest first, with its reasons (staff look into them; Settings lists them). */
export async function listRejectedEvents(db: Kysely<DB>, limit: number): Promise<RejectedEvent[]> {
  const rows = await rejectedEventsPageQuery(db, limit).execute();
  return rows.map((r) => ({
    nodeSeq: Number(r.node_seq),
    eventId: r.event_id,
    type: r.type,
    createdAt: Number(r.created_at),
    refusedAt: Number(r.acked_at),
    code: r.verdict_code,
    message: r.verdict_message,
  }));
}
