import { createHistoryApi, type HistoryApi } from '../api/history-api';
import { createOrdersApi, type OrdersApi } from '../api/orders-api';
import type { TerminalApi } from '../api/terminal-api';
import type { EventStream, StoreEventMessage } from '../events/event-stream';
import { createCustomerStore, type CustomerStore } from './customer-store';
import { mayOpenPanel, nodeScanSetting } from './node-scan-setting';
import { createQueueStore, type QueueStore } from './queue-store';
import { keepShownSession, keptShownSession } from './shown-session-keeper';
import { createCashierUiStore, type CashierUiStore } from './ui-store';

export interface CashierDeps {
  api: Pick<TerminalApi, 'queue' | 'retrieve' | 'close' | 'checkIn' | 'register' | 'scan' | 'screen'>;
  orders: OrdersApi;
  history: HistoryApi;
  events: Pick<EventStream, 'subscribe' | 'onResync'>;
  /** When the panel reads the history again while an auto reload its order queued is on its way (ms); tests shorten it. */
  autoReloadFollowDelays?: readonly number[];
  /** Whether scans at the node's scanners open their customer here (this screen's setting); default yes. */
  nodeScansOpenHere?: () => boolean;
  /** How long an order's result holds the panel against a check-in from away from the counter (ms); tests shorten it. */
  resultHoldMs?: number;
}

/** Long enough to read an order's result (points earned, an auto reload) before a kiosk or app check-in takes the panel. */
export const RESULT_HOLD_MS = 8_000;

export interface Cashier {
  api: CashierDeps['api'];
  queue: QueueStore;
  customer: CustomerStore;
  ui: CashierUiStore;
  /** Loads the queue and follows the event stream; returns the function that stops following. */
  start(): () => void;
  /** Opens a session in the panel (and puts the queue's cursor on it). */
  openSession(hash: string, sessionId?: number | null): Promise<void>;
}

/** The cashier screen's state for a terminal API: builds the feature APIs over the same key. */
export function cashierFor(api: TerminalApi, events: CashierDeps['events'], nodeScansOpenHere = () => nodeScanSetting.getState().opensPanel): Cashier {
  return createCashier({ api, orders: createOrdersApi(api.request, api.apiKey), history: createHistoryApi(api.request, api.apiKey), events, nodeScansOpenHere });
}

/**
 * Wires the queue and the customer panel to the store's event stream: every session or order event
 * reloads the queue; a newly opened session comes up in the panel by itself when the panel is free
 * (a scan at the counter) — unless a node scanner's scan and this screen leaves those to another
 * counter (node-scan-setting); events about the shown session refresh it; a reconnection reloads both.
 */
export function createCashier(deps: CashierDeps): Cashier {
  const queue = createQueueStore(deps.api);
  const customer = createCustomerStore(deps);
  const ui = createCashierUiStore();

  async function openSession(hash: string, sessionId: number | null = null): Promise<void> {
    queue.getState().setCursor(hash);
    await customer.getState().open(hash, sessionId);
  }

  /** The panel is free for the next customer: nothing shown, a session that already ended, or one that could not be read. */
  const panelFree = () => {
    const c = customer.getState();
    return c.hash === null || c.ended !== null || c.phase === 'error';
  };
  const concernsPanel = (event: StoreEventMessage) => event.pos_session_id != null && event.pos_session_id === customer.getState().sessionId;

  /** A check-in by a cashier screen (typed or a wedge scan), the POS, or a scanner not at the kiosk. */
  const identifiedAtCounter = (event: StoreEventMessage) => event.by === 'cashier' || event.by === 'integration' || (event.by === 'scanner' && event.station !== 'kiosk');

  // An order's result holds the panel a while: a customer checked in away from the counter (kiosk, app)
  // opens when it ends, the first of them; one identified at the counter opens at once (the cashier asked).
  let resultHeldUntil = 0;
  let openAfterHold: ReturnType<typeof setTimeout> | null = null;

  /** Shows the session's customer when the panel and the screen are free for them. */
  async function openWhenFree(event: StoreEventMessage): Promise<void> {
    if (!mayOpenPanel(event, deps.nodeScansOpenHere?.() ?? true, deps.api.screen)) return;
    const held = resultHeldUntil - Date.now();
    if (held > 0 && !identifiedAtCounter(event)) {
      openAfterHold ??= setTimeout(() => {
        openAfterHold = null;
        void openWhenFree(event);
      }, held);
      return;
    }
    const entry = queue.getState().entries.find((e) => e.id === event.pos_session_id);
    if (entry && panelFree() && ui.getState().dialog === null) await openSession(entry.hash, entry.id);
  }

  async function onEvent(event: StoreEventMessage): Promise<void> {
    if (event.type === 'sync.changed' || event.type === 'scan.rejected') return;
    const reloaded = queue.getState().reload();
    switch (event.type) {
      case 'session.opened':
        await reloaded;
        await openWhenFree(event);
        break;
      case 'session.updated':
        if (concernsPanel(event)) await customer.getState().refresh();
        // Someone already waiting (checked in at the kiosk) identified again at a counter: they are here now.
        else if (identifiedAtCounter(event)) {
          await reloaded;
          await openWhenFree(event);
        }
        break;
      case 'session.closed':
        if (concernsPanel(event)) customer.getState().sessionClosed();
        break;
      case 'order.completed':
        if (concernsPanel(event)) await customer.getState().orderCompleted(event.order_id);
        break;
      case 'order.voided':
        // A void can concern any earlier order of the customer shown.
        await customer.getState().orderVoided(event.order_id);
        break;
    }
  }

  return {
    api: deps.api,
    queue,
    customer,
    ui,
    openSession,
    start() {
      const stopEvents = deps.events.subscribe((event) => void onEvent(event));
      const stopResync = deps.events.onResync(() => {
        void queue.getState().reload();
        void customer.getState().refresh();
      });
      // A session a card identified shows "Card" in the queue once its panel has been read (also one
      // typed at this counter, whose kind was only guessed: "Typed at the counter").
      const stopCards = customer.subscribe((s, prev) => {
        const shown = s.hash ? queue.getState().methods[s.hash] : undefined;
        if (s.hash && s.customer?.pos_session.card && s.customer !== prev.customer && (!shown || shown === 'typed')) queue.getState().noteMethod(s.hash, 'card');
      });
      const stopKeeping = customer.subscribe((s, prev) => {
        if (s.hash !== prev.hash) keepShownSession(s.hash);
      });
      const stopHolding = customer.subscribe((s, prev) => {
        if (s.hash !== prev.hash) resultHeldUntil = 0;
        else if (s.ended === 'order' && prev.ended !== 'order') resultHeldUntil = Date.now() + (deps.resultHoldMs ?? RESULT_HOLD_MS);
      });
      // After a reload the highlight goes back to the customer the panel showed (still waiting), not the first row.
      void queue
        .getState()
        .reload()
        .then(() => {
          const shown = keptShownSession();
          if (shown && customer.getState().hash === null && queue.getState().entries.some((e) => e.hash === shown)) queue.getState().setCursor(shown);
        });
      return () => {
        stopEvents();
        stopResync();
        stopCards();
        stopKeeping();
        stopHolding();
        if (openAfterHold) clearTimeout(openAfterHold);
      };
    },
  };
}
