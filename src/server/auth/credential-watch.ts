import type { Engine } from '../../core/engine';

const CHECK_MS = 2_000;

/** Which of these credential ids are still live (not revoked, not gone), read from the database. */
export type LiveCredentials = (engine: Engine, ids: number[]) => Promise<Set<number>>;

/** Calls `onRevoked` once the credential `id` is no longer live; returns the function that stops watching. */
export type WatchCredential = (engine: Engine, id: number, onRevoked: () => void) => () => void;

interface Watcher {
  /** Each open stream's callbacks, by the id of the credential it was opened with. */
  ids: Map<number, Set<() => void>>;
  timer: ReturnType<typeof setInterval> | null;
}

/**
 * A watch over the credentials long-lived streams were opened with (an event stream's API key, a
 * poke stream's node): a stream is authenticated when it opens and may stay open for days, so it is
 * ended once its credential is revoked or gone. One query every 2 s per process for all of a kind's
 * open streams, read from the database: the back office, the CLI, another central process or a
 * pulled sync change may be what revoked it.
 */
export function credentialWatch(liveCredentials: LiveCredentials): WatchCredential {
  const watchers = new WeakMap<Engine, Watcher>();
  return (engine, id, onRevoked) => {
    let watcher = watchers.get(engine);
    if (!watcher) {
      watcher = { ids: new Map(), timer: null };
      watchers.set(engine, watcher);
    }
    const w = watcher;
    const callbacks = w.ids.get(id) ?? new Set();
    w.ids.set(id, callbacks.add(onRevoked));
    if (!w.timer) {
      w.timer = setInterval(() => void endRevoked(engine, w, liveCredentials).catch(() => undefined), CHECK_MS);
      w.timer.unref();
    }
    return () => {
      callbacks.delete(onRevoked);
      if (callbacks.size === 0) w.ids.delete(id);
      if (w.ids.size === 0 && w.timer) {
        clearInterval(w.timer);
        w.timer = null;
      }
    };
  };
}

/** Calls the callbacks of every watched credential that is no longer live. */
async function endRevoked(engine: Engine, w: Watcher, liveCredentials: LiveCredentials): Promise<void> {
  const ids = [...w.ids.keys()];
  if (ids.length === 0) return;
  const live = await liveCredentials(engine, ids);
  for (const id of ids) {
    if (live.has(id)) continue;
    for (const callback of [...(w.ids.get(id) ?? [])]) callback();
  }
}
