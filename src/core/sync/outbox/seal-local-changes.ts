import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import { recordSyncEvent } from './record-event';

/**
 * On a paired store, groups the row changes a command captured (sync_changes rows not yet in an
 * event) into one event with the next gapless node_seq, in the command's own transaction: if the
 * sale commits, so does its event. Returns the event's node_seq, or null when nothing changed.
 */
export async function sealLocalChanges(db: Kysely<DB>, engine: Engine, type: string): Promise<number | null> {
  const loose = await db.selectFrom('sync_changes').select('seq').where('event_seq', 'is', null).limit(1).executeTakeFirst();
  if (!loose) return null;
  const { nodeSeq } = await recordSyncEvent(db, engine, { type, version: 1, payload: null, offline: !engine.centralLink.reachable });
  await db.updateTable('sync_changes').set({ event_seq: nodeSeq }).where('event_seq', 'is', null).execute();
  return nodeSeq;
}
