import { createStore } from 'zustand/vanilla';
import type { QueueEntry, TerminalApi } from '../api/terminal-api';
import { errorMessage } from '../api/client';

/** One customer waiting at the counter (the `pos_session` of a queue entry). */
export type QueueSession = QueueEntry['pos_session'];

/** How a customer identified, when this screen knows it (typed here, or read from their session). */
export type CheckInMethod = 'card' | 'email' | 'phone' | 'app' | 'typed' | 'registered';

export interface QueueState {
  /** loading: first load; ready: entries are current; error: the last load failed (entries are the last known). */
  phase: 'loading' | 'ready' | 'error';
  /** Open sessions of the store, oldest first (as the node lists them). */
  entries: QueueSession[];
  /** The node's message when the last load failed. */
  error: string | null;
  /** The highlighted row (keyboard cursor); Enter opens it. */
  cursor: string | null;
  /** How many times the keys moved the cursor (J/K, arrows): the list brings the row into view and gives it the focus then. */
  cursorMoves: number;
  /** Check-in method by session hash, for the sessions this screen knows about. */
  methods: Record<string, CheckInMethod>;
  /** Fetches the queue. Calls made while one is in flight are folded into one more fetch after it. */
  reload(): Promise<void>;
  /** Moves the cursor by `delta` rows (clamped). */
  moveCursor(delta: number): void;
  setCursor(hash: string | null): void;
  /** Notes how a session's customer identified. */
  noteMethod(hash: string, method: CheckInMethod): void;
  /** Drops a session at once (closed from this screen), before the node's event confirms it. */
  drop(hash: string): void;
}

/** Keeps the cursor on a row that exists: the same session, else the row at the same place. */
function keepCursor(previous: QueueSession[], next: QueueSession[], cursor: string | null): string | null {
  if (next.length === 0) return null;
  if (cursor && next.some((e) => e.hash === cursor)) return cursor;
  const index = cursor ? previous.findIndex((e) => e.hash === cursor) : 0;
  return next[Math.min(Math.max(index, 0), next.length - 1)]!.hash;
}

/**
 * The live queue of the counter: loaded from GET /onscreen/queue and reloaded when the event stream
 * says something changed (no polling). Loads never overlap and never run out of order.
 */
export function createQueueStore(api: Pick<TerminalApi, 'queue'>) {
  let running: Promise<void> | null = null;
  let again = false;

  return createStore<QueueState>()((set, get) => {
    async function fetchOnce(): Promise<void> {
      try {
        const reply = await api.queue();
        const entries = reply.map((e) => e.pos_session);
        const live = new Set(entries.map((e) => e.hash));
        const methods = Object.fromEntries(Object.entries(get().methods).filter(([hash]) => live.has(hash)));
        set((s) => ({ phase: 'ready', entries, error: null, methods, cursor: keepCursor(s.entries, entries, s.cursor) }));
      } catch (error) {
        set({ phase: 'error', error: errorMessage(error) });
      }
    }

    return {
      phase: 'loading',
      entries: [],
      error: null,
      cursor: null,
      cursorMoves: 0,
      methods: {},
      reload() {
        if (running) {
          again = true;
          return running;
        }
        running = (async () => {
          do {
            again = false;
            await fetchOnce();
          } while (again);
        })().finally(() => {
          running = null;
        });
        return running;
      },
      moveCursor(delta) {
        const { entries, cursor } = get();
        if (entries.length === 0) return;
        const at = cursor ? entries.findIndex((e) => e.hash === cursor) : -1;
        const next = at < 0 ? (delta > 0 ? 0 : entries.length - 1) : Math.min(Math.max(at + delta, 0), entries.length - 1);
        set((s) => ({ cursor: entries[next]!.hash, cursorMoves: s.cursorMoves + 1 }));
      },
      setCursor(hash) {
        set({ cursor: hash });
      },
      noteMethod(hash, method) {
        // A guess ("typed") never replaces what the panel told (a card matched), whichever came first.
        set((s) => (method === 'typed' && s.methods[hash] === 'card' ? s : { methods: { ...s.methods, [hash]: method } }));
      },
      drop(hash) {
        set((s) => {
          const entries = s.entries.filter((e) => e.hash !== hash);
          return { entries, cursor: keepCursor(s.entries, entries, s.cursor) };
        });
      },
    };
  });
}

export type QueueStore = ReturnType<typeof createQueueStore>;

/** A typed identification's likely kind, for the queue's "how" label (the node decides the real match). */
export function guessMethod(identification: string): CheckInMethod {
  const value = identification.trim();
  if (/^PC/i.test(value)) return 'app';
  if (value.includes('@')) return 'email';
  if (/^\+[\d\s().-]{6,}$/.test(value)) return 'phone';
  // Written as a phone number is ((415) 555-0110, 415-555-0110): digits alone may be a card.
  const digits = value.replace(/\D/g, '').length;
  if (/^[\d\s().-]+$/.test(value) && /[\s().-]/.test(value) && digits >= 7 && digits <= 15) return 'phone';
  return 'typed';
}
