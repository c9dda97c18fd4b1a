import { liveApiKeyIds } from '../../core/credentials/live-api-keys';
import type { Engine } from '../../core/engine';

const CHECK_MS = 2_000;

interface Watcher {
  /** Each open stream's callbacks, by the id of the API key it was opened with. */
  keys: Map<number, Set<() => void>>;
  timer: ReturnType<typeof setInterval> | null;
}

const watchers = new WeakMap<Engine, Watcher>();

/**
 * Calls `onRevoked` once the API key is revoked (or gone): a store's event stream is authenticated
 * when it opens and stays open for days, so without this a revoked kiosk or cashier key kept
 * hearing every check-in and order of its store (found by the tenth round's attacker run). One
 * query every 2 s per process for all open streams, read from the database: the CLI, another
 * central process or a pulled sync change may be what revoked it. Returns the function that stops
 * watching.
 */
export function watchApiKeyRevocation(engine: Engine, keyId: number, onRevoked: () => void): () => void {
  let watcher = watchers.get(engine);
  if (!watcher) {
    watcher = { keys: new Map(), timer: null };
    watchers.set(engine, watcher);
  }
  const w = watcher;
  const callbacks = w.keys.get(keyId) ?? new Set();
  w.keys.set(keyId, callbacks.add(onRevoked));
  if (!w.timer) {
    w.timer = setInterval(() => void endRevoked(engine, w).catch(() => undefined), CHECK_MS);
    w.timer.unref();
  }
  return () => {
    callbacks.delete(onRevoked);
    if (callbacks.size === 0) w.keys.delete(keyId);
    if (w.keys.size === 0 && w.timer) {
      clearInterval(w.timer);
      w.timer = null;
    }
  };
}

/** Calls the callbacks of every watched key that is no longer live. */
async function endRevoked(engine: Engine, w: Watcher): Promise<void> {
  const ids = [...w.keys.keys()];
  if (ids.length === 0) return;
  const alive = await liveApiKeyIds(engine.db, ids);
  for (const id of ids) {
    if (alive.has(id)) continue;
    for (const callback of [...(w.keys.get(id) ?? [])]) callback();
  }
}
