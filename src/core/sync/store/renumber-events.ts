import { type Kysely, sql } from 'kysely';
import type { DB } from '../../storage/schema';

/**
 * Numbers this store's events from `fromSeq` on after `lastSeq` (central's last for this node), in
 * their order and with their ids, and moves the node's event sequence along: central then takes
 * them as new events. Every one of them must be unanswered (central answers nothing past a
 * divergence). In the caller's transaction; returns how many were renumbered.
 */
export async function renumberEventsAfter(trx: Kysely<DB>, fromSeq: number, lastSeq: number): Promise<number> {
  const shift = lastSeq + 1 - fromSeq;
  if (shift <= 0) throw new Error(`events from ${fromSeq} would be numbered back, after ${lastSeq}`);
  const answered = await trx.selectFrom('sync_events').select('node_seq').where('node_seq', '>=', fromSeq).where('acked_at', 'is not', null).limit(1).executeTakeFirst();
  if (answered) throw new Error(`event ${answered.node_seq} was answered by central, yet central took another event at ${fromSeq}`);
  // Through negative numbers: a node_seq is a key, and the old and new ranges may overlap.
  const moved = await sql`update sync_events set node_seq = -(node_seq + ${shift}) where node_seq >= ${fromSeq}`.execute(trx);
  await sql`update sync_events set node_seq = -node_seq where node_seq < 0`.execute(trx);
  await sql`update sync_changes set event_seq = event_seq + ${shift} where event_seq >= ${fromSeq}`.execute(trx);
  await sql`update id_sequences set value = value + ${shift} where name = 'sync_events' and value >= ${fromSeq}`.execute(trx);
  return Number(moved.numAffectedRows ?? 0);
}
