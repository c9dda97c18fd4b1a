import type { Engine } from '../../core/engine';

const CHECK_MS = 2_000;

interface Watcher {
  /** Each listening node's callbacks, by node id. */
  nodes: Map<number, Set<() => void>>;
  timer: ReturnType<typeof setInterval> | null;
}

const watchers = new WeakMap<Engine, Watcher>();

/**
 * Calls `onRevoked` once the node is revoked (or gone) at central: a poke stream is authenticated
 * when it opens and may stay open for days, so without this a node revoked by an administrator
 * kept hearing the chain's activity. One query every 2 s per process for all open streams (read
 * from the database: another central process may be the one that revoked it). Returns the
 * function that stops watching.
 */
export function watchRevocation(engine: Engine, nodeId: number, onRevoked: () => void): () => void {
  let watcher = watchers.get(engine);
  if (!watcher) {
    watcher = { nodes: new Map(), timer: null };
    watchers.set(engine, watcher);
  }
  const w = watcher;
  const callbacks = w.nodes.get(nodeId) ?? new Set();
  w.nodes.set(nodeId, callbacks.add(onRevoked));
  if (!w.timer) {
    w.timer = setInterval(() => void endRevoked(engine, w).catch(() => undefined), CHECK_MS);
    w.timer.unref();
  }
  return () => {
    callbacks.delete(onRevoked);
    if (callbacks.size === 0) w.nodes.delete(nodeId);
    if (w.nodes.size === 0 && w.timer) {
      clearInterval(w.timer);
      w.timer = null;
    }
  };
}

/** Calls the callbacks of every watched node that is no longer paired. */
async function endRevoked(engine: Engine, w: Watcher): Promise<void> {
  const ids = [...w.nodes.keys()];
  if (ids.length === 0) return;
  const live = await engine.db.selectFrom('sync_nodes').select('id').where('id', 'in', ids).where('revoked_at', 'is', null).execute();
  const paired = new Set(live.map((row) => Number(row.id)));
  for (const id of ids) {
    if (paired.has(id)) continue;
    for (const callback of [...(w.nodes.get(id) ?? [])]) callback();
  }
}
