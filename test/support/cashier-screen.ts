import { expect, vi } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createTerminalApi, type TerminalApi } from '../../src/renderer/src/api/terminal-api';
import { type Cashier, cashierFor } from '../../src/renderer/src/cashier/cashier-controller';
import type { StoreEventMessage } from '../../src/renderer/src/events/event-stream';
import type { EventStream } from './event-stream';
import type { TestNode } from './test-node';

// A cashier screen of a store as the renderer builds it (its controller and stores), fed by the
// node's real event stream, for tests of what several screens of one store show.

export interface CashierScreen {
  cashier: Cashier;
  api: TerminalApi;
}

/**
 * Starts a screen signed in with `apiKey` at `node`; `openStream` opens the store's event stream
 * (support/event-stream's `eventStreams`). `stops` collects what the test's end must stop.
 */
export async function cashierScreen(
  node: TestNode,
  apiKey: string,
  openStream: (apiKey: string) => Promise<EventStream>,
  stops: Array<() => void>,
  options: { nodeScansOpenHere?: boolean } = {},
): Promise<CashierScreen> {
  const api = createTerminalApi(createRequester({ baseUrl: node.url, credential: null }), apiKey);
  const listeners = new Set<(e: StoreEventMessage) => void>();
  const events = {
    subscribe: (listener: (e: StoreEventMessage) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onResync: () => () => undefined,
  };
  const cashier = cashierFor(api, events, () => options.nodeScansOpenHere ?? true);
  const stream = await openStream(apiKey);
  let pumping = true;
  void (async () => {
    while (pumping) {
      const message = await stream.next(60_000).catch(() => null);
      if (!message) break;
      for (const listener of listeners) listener(message.data as StoreEventMessage);
    }
  })();
  stops.push(cashier.start(), () => (pumping = false));
  await vi.waitFor(() => expect(cashier.queue.getState().phase).toBe('ready'));
  return { cashier, api };
}

/** The session ids in the screen's queue. */
export const queued = (cashier: Cashier) => cashier.queue.getState().entries.map((e) => e.id);

/** Long enough for an event a screen should ignore to have (wrongly) opened its panel. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 400));
