import { expect } from 'vitest';
import type { TestNode } from './test-node';

// A Server-Sent Events client on fetch, for the tests of GET /app/events?api_key: open a stream,
// take its events one by one, expect quiet, and close every stream a test opened at its end.

/** One event of the stream: its `event:` line and its JSON data. */
export interface SseMessage {
  event: string;
  data: any;
}

export interface EventStream {
  response: Response;
  /** Everything received so far, as text. */
  text(): string;
  /** The next event (a block with an `event:` line), waiting up to `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseMessage>;
  /** Events received and not yet taken by `next`. */
  pending(): SseMessage[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

function parseBlock(block: string): SseMessage | null {
  let event: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice('event: '.length);
    else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
  }
  if (event === null) return null;
  return { event, data: JSON.parse(data.join('\n')) };
}

/** Opens an event stream at `url` (GET with fetch, closed by aborting it). */
export async function openEventStream(url: string): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const messages: SseMessage[] = [];
  let raw = '';
  let buffer = '';
  // Wakes a `next` that is waiting for data.
  const waiting: { wake: (() => void) | null } = { wake: null };
  let finished = false;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const chunk = decoder.decode(value, { stream: true });
        raw += chunk;
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = parseBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (message) messages.push(message);
        }
        waiting.wake?.();
      }
    } catch {
      // aborted by close()
    } finally {
      finished = true;
      waiting.wake?.();
    }
  })();
  return {
    response,
    text: () => raw,
    pending: () => [...messages],
    ended,
    async next(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length === 0) {
        if (finished) throw new Error(`the event stream ended; received so far:\n${raw}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms; received so far:\n${raw}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiting.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiting.wake = null;
      }
      return messages.shift()!;
    },
    close() {
      controller.abort();
    },
  };
}

/** Waits a moment and expects that nothing more arrived on the stream. */
export async function expectQuiet(stream: EventStream, ms = 150): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  expect(stream.pending()).toEqual([]);
}

/** An event as the store's stream carries it: `event: <type>` and the JSON data, `at` in epoch ms (and `order_id` when given). */
export function storeEvent(type: string, store: { vendorId: number; storeId: number }, sessionId: number | null, at: number, orderId?: number): SseMessage {
  return {
    event: type,
    data: { type, vendor_id: store.vendorId, store_id: store.storeId, pos_session_id: sessionId, ...(orderId === undefined ? {} : { order_id: orderId }), at },
  };
}

/** Event streams of the node `nodeOf()` returns, each remembered until `closeAll` (call it in afterEach). */
export function eventStreams(nodeOf: () => TestNode) {
  const open: EventStream[] = [];
  const openStream = async (url: string): Promise<EventStream> => {
    const stream = await openEventStream(url);
    open.push(stream);
    return stream;
  };
  return {
    /** `openEventStream`, closed by `closeAll`. */
    openStream,
    /** Opens the store's stream and waits for the server's greeting (so it is subscribed before the test acts). */
    async events(apiKey: string): Promise<EventStream> {
      const stream = await openStream(`${nodeOf().url}/app/events?api_key=${encodeURIComponent(apiKey)}`);
      expect(stream.response.status).toBe(200);
      const deadline = Date.now() + 5_000;
      while (!stream.text().includes('\n\n')) {
        if (Date.now() > deadline) throw new Error('no greeting on the event stream');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return stream;
    },
    /** Closes every stream opened so far, even when the test failed. */
    closeAll(): void {
      for (const stream of open.splice(0)) stream.close();
    },
  };
}
