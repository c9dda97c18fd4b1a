import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { EventVerdict, MovedRowId, PushedEvent, PushResponse } from '../protocol';
import type { PairedNode } from './apply-push';
import { highestIdOfNode } from './highest-node-id';
import { recordSyncException } from './sync-exceptions';
import { eventSubject } from '../../../shared/exception-subject';

/**
 * Verdicts of events central already took, as it gave them: central keeps a row for each refusal
 * (sync_verdicts); one at or below the node's last without a row was applied. `takenElsewhere`
 * gives central's node_seq of an event it took at another number (compareRepeatedEvents); `tell`,
 * where the rows of some of them are at central (movesToTell).
 */
export async function storedVerdicts(
  trx: Kysely<DB>,
  nodeId: number,
  events: PushedEvent[],
  takenElsewhere: ReadonlyMap<number, number>,
  tell: ReadonlyMap<number, MovedRowId[]>,
): Promise<EventVerdict[]> {
  if (events.length === 0) return [];
  const centralSeq = (event: PushedEvent) => takenElsewhere.get(event.node_seq) ?? event.node_seq;
  const stored = await trx
    .selectFrom('sync_verdicts')
    .selectAll()
    .where('node_id', '=', nodeId)
    .where('node_seq', 'in', events.map(centralSeq))
    .execute();
  const bySeq = new Map(stored.map((v) => [Number(v.node_seq), v]));
  return events.map((event) => {
    const verdict = bySeq.get(centralSeq(event));
    const movedIds = tell.get(event.node_seq);
    return {
      node_seq: event.node_seq,
      event_id: event.event_id,
      verdict: verdict?.verdict === 'rejected' ? 'rejected' : 'applied',
      code: verdict?.code ?? null,
      message: verdict?.message ?? null,
      ...(movedIds ? { moved_ids: movedIds } : {}),
    };
  });
}

/**
 * A push whose event at `divergedAt` is not the one central took there (the store was restored
 * from a backup): the repeats before it are answered, nothing from it on is applied or answered,
 * and the store is told where to renumber from and which ids its rows must move above. Staff see
 * it once among the node's exceptions.
 */
export async function answerDivergence(
  trx: Kysely<DB>,
  engine: Engine,
  node: PairedNode,
  repeated: PushedEvent[],
  { divergedAt, takenElsewhere, tell }: { divergedAt: number; takenElsewhere: ReadonlyMap<number, number>; tell: ReadonlyMap<number, MovedRowId[]> },
  lastSeq: number,
): Promise<PushResponse> {
  const results = await storedVerdicts(trx, node.id, repeated.filter((e) => e.node_seq < divergedAt), takenElsewhere, tell);
  const subject = eventSubject(divergedAt);
  const told = await trx.selectFrom('sync_exceptions').select('id').where('node_id', '=', node.id).where('kind', '=', 'node_restored').where('subject', '=', subject).executeTakeFirst();
  if (!told) {
    await recordSyncException(trx, engine, node, 'node_restored', subject, { key: 'node_restored', params: { from: divergedAt, last: lastSeq } });
  }
  return { results, resume_from: null, diverged: { node_seq: divergedAt, last_seq: lastSeq, highest_id: await highestIdOfNode(trx, node.id) } };
}
