import type { Engine } from '../../core/engine';
import { logHead } from '../../core/sync/central/read-snapshot';

const POLL_MS = 200;

type Listener = (head: number) => void;

interface Watcher {
  listeners: Set<Listener>;
  head: number;
  timer: ReturnType<typeof setInterval> | null;
}

const watchers = new WeakMap<Engine, Watcher>();

/**
 * Central's log head, watched once per process for every store's poke stream: one query every
 * 200 ms however many stores listen (reading the database, not an in-process signal, so commits
 * made by another central process on the same PostgreSQL poke these stores too). Calls `listener`
 * with the head now and whenever it moves; returns the function that stops listening.
 */
export function watchLogHead(engine: Engine, listener: Listener): () => void {
  let watcher = watchers.get(engine);
  if (!watcher) {
    watcher = { listeners: new Set(), head: -1, timer: null };
    watchers.set(engine, watcher);
  }
  const w = watcher;
  w.listeners.add(listener);
  if (w.head >= 0) listener(w.head);
  if (!w.timer) {
    const tick = async () => {
      const head = await logHead(engine.db);
      if (head === w.head) return;
      w.head = head;
      for (const each of w.listeners) each(head);
    };
    w.timer = setInterval(() => void tick().catch(() => undefined), POLL_MS);
    w.timer.unref();
    void tick().catch(() => undefined);
  }
  return () => {
    w.listeners.delete(listener);
    if (w.listeners.size === 0 && w.timer) {
      clearInterval(w.timer);
      w.timer = null;
      w.head = -1;
    }
  };
}
