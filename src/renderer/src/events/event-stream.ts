import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';

/** One event of the store's stream (GET /app/events): see src/server/routes/events.ts. */
export interface StoreEventMessage {
  type: string;
  vendor_id: number;
  store_id: number;
  pos_session_id: number;
  order_id?: number;
  /** Who opened or touched the session: cashier, kiosk, integration, app, or scanner (a device the node reads). */
  by?: string;
  /** by scanner: the station the scanner serves (counter or kiosk); absent when not assigned. */
  station?: 'counter' | 'kiosk';
  /** The cashier screen whose check-in made the event (its `screen` id): only that screen opens the customer. */
  screen?: string;
  /** scan.rejected: the node's error code (customer_not_found, unreadable_scan…). */
  reason?: string;
  /** Unix ms. */
  at: number;
}

/** Event types the node sends (src/core/events/store-events.ts). */
export const STORE_EVENT_TYPES = ['session.opened', 'session.updated', 'session.closed', 'order.completed', 'order.voided', 'scan.rejected', 'sync.changed'] as const;

export interface EventStreamState {
  /**
   * connecting: first attempt; open: events flow; offline: lost — the browser retries a dropped
   * connection by itself, and a refused one (an HTTP error, a proxy's 502) is retried here.
   */
  status: 'idle' | 'connecting' | 'open' | 'offline';
  /** Date.now() of the last event or (re)connection. */
  lastEventAt: number | null;
}

type Listener = (event: StoreEventMessage) => void;

/** First wait before reopening a stream the browser gave up on; doubles up to the maximum. */
export const EVENT_STREAM_RETRY_MS = 3_000;
export const EVENT_STREAM_RETRY_MAX_MS = 30_000;
/** EventSource.CLOSED: the browser will not reconnect by itself. */
const CLOSED = 2;

/**
 * The store's live event stream: screens update from it instead of polling. Every (re)connection
 * calls the `resync` listeners, so whatever was missed while offline is fetched once again.
 */
export function createEventStream(EventSourceImpl: typeof EventSource = EventSource) {
  const listeners = new Set<Listener>();
  const resyncs = new Set<() => void>();
  let source: EventSource | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryMs = EVENT_STREAM_RETRY_MS;
  const state = createStore<EventStreamState>()(() => ({ status: 'idle', lastEventAt: null }));

  function deliver(message: MessageEvent<string>) {
    let event: StoreEventMessage;
    try {
      event = JSON.parse(message.data) as StoreEventMessage;
    } catch {
      return;
    }
    state.setState({ lastEventAt: Date.now() });
    for (const listener of listeners) listener(event);
  }

  const stream = {
    state,
    /**
     * Opens the stream at `url` (closing any previous one). `onRefused`: the node answered the
     * stream with an HTTP error (a key it no longer takes, a restart behind a proxy), each time.
     */
    connect(url: string, onRefused?: () => void) {
      clearTimeout(retryTimer);
      retryTimer = undefined;
      source?.close();
      if (state.getState().status !== 'offline') state.setState({ status: 'connecting' });
      const current = new EventSourceImpl(url);
      source = current;
      current.onopen = () => {
        if (source !== current) return;
        retryMs = EVENT_STREAM_RETRY_MS;
        state.setState({ status: 'open', lastEventAt: Date.now() });
        for (const resync of resyncs) resync();
      };
      current.onerror = () => {
        if (source !== current) return;
        state.setState({ status: 'offline' });
        // A network drop is retried by the browser; an HTTP error answer (node restarting behind a
        // proxy, 5xx) closes the EventSource for good, so the stream is reopened here, with backoff.
        if (current.readyState !== CLOSED || retryTimer !== undefined) return;
        onRefused?.();
        const wait = retryMs;
        retryMs = Math.min(retryMs * 2, EVENT_STREAM_RETRY_MAX_MS);
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          if (source === current) stream.connect(url, onRefused);
        }, wait);
      };
      for (const type of STORE_EVENT_TYPES) current.addEventListener(type, deliver as EventListener);
    },
    disconnect() {
      clearTimeout(retryTimer);
      retryTimer = undefined;
      retryMs = EVENT_STREAM_RETRY_MS;
      source?.close();
      source = null;
      state.setState({ status: 'idle' });
    },
    /** Calls `listener` for each event; returns the unsubscribe function. */
    subscribe(listener: Listener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Calls `resync` on every (re)connection; returns the unsubscribe function. */
    onResync(resync: () => void): () => void {
      resyncs.add(resync);
      return () => resyncs.delete(resync);
    },
  };
  return stream;
}

export type EventStream = ReturnType<typeof createEventStream>;

let pageStream: EventStream | null = null;

/** The page's event stream (one connection per page). */
export function eventStream(): EventStream {
  pageStream ??= createEventStream();
  return pageStream;
}

export function useEventStreamStatus(): EventStreamState['status'] {
  return useStore(eventStream().state, (s) => s.status);
}
