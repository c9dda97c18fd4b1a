import { expect, vi } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createTerminalApi, type TerminalApi } from '../../src/renderer/src/api/terminal-api';
import { createHistoryApi } from '../../src/renderer/src/api/history-api';
import { createOrdersApi, type OrdersApi } from '../../src/renderer/src/api/orders-api';
import { type Cashier, createCashier } from '../../src/renderer/src/cashier/cashier-controller';
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
  /** `orders`: stands between the screen and POST /order (a reply lost on the way back). */
  options: { nodeScansOpenHere?: boolean; orders?: (orders: OrdersApi) => OrdersApi } = {},
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
  const orders = createOrdersApi(api.request, api.apiKey);
  const cashier = createCashier({ api, orders: options.orders?.(orders) ?? orders, history: createHistoryApi(api.request, api.apiKey), events, nodeScansOpenHere: () => options.nodeScansOpenHere ?? true });
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
