import type { Engine } from '../../engine';
import { nodeOfId } from '../../storage/ids';
import { setMeta } from '../../storage/node-meta';
import type { PushDivergence, PushedEvent } from '../protocol';
import { moveObjectCounterPast } from './object-counter';
import { moveUnsentRows } from './moved-row-ids';
import { newIdsFor, rowsMadeSince } from './reassign-row-ids';
import { renumberEventsAfter } from './renumber-events';

/** node_meta: the last time this store followed central after a restore (what it renumbered and moved). */
export const RESTORE_FOLLOWED = 'sync_restore_followed';

/**
 * Central took other events than this store's at some of its node_seqs: the store was restored
 * from a backup, and its lost copy's sales after the backup are at central (docs/sync.md, "A store
 * restored from a backup"). In one transaction: the rows the store made since take ids above
 * every id of its range central holds, its unsent events from the divergence on are numbered after
 * central's last, and its counters move past both, so the next push is applied as new sales and no
 * id it hands out is one central holds. The lost copy's rows come back by the pull, as the
 * store's own rows always do. Returns how many events were renumbered and rows moved.
 */
export async function followCentralAfterRestore(engine: Engine, sent: readonly PushedEvent[], divergence: PushDivergence): Promise<{ renumbered: number; moved: number }> {
  refuseNonsense(engine, sent, divergence);
  return engine.db.transaction().execute(async (trx) => {
    let moved = 0;
    if (divergence.highest_id !== null) {
      await moveObjectCounterPast(trx, engine, divergence.highest_id);
      const made = await rowsMadeSince(trx, engine, divergence.node_seq, divergence.highest_id);
      // Told to central with their events: a folder restored again from an older backup moves its copies alike.
      await moveUnsentRows(trx, engine, await newIdsFor(trx, engine, made), divergence.node_seq);
      moved = made.length;
    }
    const renumbered = await renumberEventsAfter(trx, divergence.node_seq, divergence.last_seq);
    const followed = { at: engine.clock.now(), from: divergence.node_seq, after: divergence.last_seq, renumbered, moved };
    await setMeta(trx, RESTORE_FOLLOWED, JSON.stringify(followed));
    return { renumbered, moved };
  });
}

/** A divergence that does not fit what was sent is not acted on (the push fails, and is sent again). */
function refuseNonsense(engine: Engine, sent: readonly PushedEvent[], divergence: PushDivergence): void {
  const { node_seq: from, last_seq: last, highest_id: highest } = divergence;
  const fits =
    Number.isSafeInteger(from) &&
    Number.isSafeInteger(last) &&
    from <= last &&
    sent.some((e) => e.node_seq === from) &&
    (highest === null || (Number.isSafeInteger(highest) && nodeOfId(highest) === engine.nodeId));
  if (!fits) throw new Error(`central answered a divergence that does not fit the events sent: ${JSON.stringify(divergence)}`);
}
