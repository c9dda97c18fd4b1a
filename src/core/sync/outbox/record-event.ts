import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { nextSequence } from '../../storage/ids';
import { preparedInsert } from '../../storage/prepared';
import type { DB } from '../../storage/schema';

const insertEvent = preparedInsert('sync_events');

export interface NewSyncEvent {
  type: string;
  version: number;
  payload: unknown;
  offline?: boolean;
}

/**
 * Appends an event central must learn about, in the caller's transaction: if the change commits,
 * the event exists; if it rolls back, so does the event. node_seq is gapless per node, so central
 * can tell a lost event from one not yet sent.
 */
export async function recordSyncEvent(db: Kysely<DB>, engine: Engine, event: NewSyncEvent): Promise<{ nodeSeq: number; eventId: string }> {
  const nodeSeq = await nextSequence(db, 'sync_events');
  const eventId = randomUUID();
  await insertEvent(db, {
    node_seq: nodeSeq,
    event_id: eventId,
    node_id: engine.nodeId,
    type: event.type,
    version: event.version,
    payload: JSON.stringify(event.payload),
    offline: event.offline ? 1 : 0,
    created_at: engine.clock.now(),
    acked_at: null,
  });
  return { nodeSeq, eventId };
}
