import { createStore } from 'zustand/vanilla';
import type { HistoryApi, HistoryRecord } from '../api/history-api';
import type { OrderReply, OrderRequest, OrdersApi } from '../api/orders-api';
import type { CustomerAtCounter, TerminalApi } from '../api/terminal-api';
import { applyHistoryRecord, tierMovedTo, withOrderBalances, withTierMove } from './balances';
import { errorMessage, NodeApiError } from '../api/client';
import { readHistoryRecord } from './history-lines';

/** How many history records the panel shows. */
export const HISTORY_LIMIT = 5;

/**
 * How long the panel waits before each fresh read of the history while an auto reload its order
 * queued has not arrived (ms; ~50 s in all, 7 reads: the history's per-key limit is 60 a minute).
 * The node sends no event when a reload completes, so the history is the panel's only way to learn it.
 */
export const AUTO_RELOAD_FOLLOW_DELAYS = [1_000, 2_000, 3_000, 5_000, 8_000, 13_000, 20_000];

/**
 * The auto reload an order placed from the panel queued (`auto_reload_queued`): on its way, or its
 * history record's word (amount loaded, or asked and declined; the quick-pay balance it states).
 */
export type AutoReloadState = { status: 'waiting'; receipt: string } | { status: 'arrived' | 'declined'; receipt: string; amount: number; balance: number };

/** The auto-reload record that followed the order with this receipt number in a history page (newest first), if any. */
export function autoReloadAfter(history: readonly HistoryRecord[], receipt: string): HistoryRecord | null {
  const at = history.findIndex((r) => r.object === 'order' && r.receipts?.[0]?.receipt_number === receipt);
  if (at < 0) return null;
  // Records newer than the order, nearest it first.
  for (let i = at - 1; i >= 0; i--) {
    const record = history[i]!;
    if (readHistoryRecord(record).kind === 'autoReload') return record;
  }
  return null;
}

/** An order as the form sends it: the store adds the session. */
export type OrderDraftBody = Omit<OrderRequest, 'pos_session_hash' | 'card_number'>;

export interface CustomerState {
  /** The session the panel shows; null: no panel. */
  hash: string | null;
  /** Its numeric id (events name sessions by id). */
  sessionId: number | null;
  /** loading: no data yet for this session; ready: `customer` is this session's; error: it could not be read. */
  phase: 'idle' | 'loading' | 'ready' | 'error';
  customer: CustomerAtCounter | null;
  /** The node's message when the panel could not be loaded. */
  error: string | null;
  /**
   * The session ended while shown: by an order (ours or the POS's), by one that was then voided, or
   * closed elsewhere. Actions stop.
   */
  ended: 'order' | 'voided' | 'closed' | null;
  /** ended `voided`: the receipt of the sale voided, as its void record names it. */
  voidedReceipt: string | null;
  history: HistoryRecord[] | null;
  historyPhase: 'idle' | 'loading' | 'ready' | 'error';
  historyError: string | null;
  /** The order placed from this panel, shown with the balances after it. */
  lastOrder: OrderReply | null;
  busy: 'ordering' | 'closing' | null;
  /** The node's message when the last order was refused. */
  orderError: string | null;
  /** The input that refusal names (`quick_pay`, `redemptions`…), when it names one. */
  orderErrorField: string | null;
  /** The node's message when closing the session failed. */
  closeError: string | null;
  /** The auto reload the panel's order queued: waiting for it, or what its history record says. */
  autoReload: AutoReloadState | null;

  /** Shows a session (cancels whatever the panel was loading). */
  open(hash: string, sessionId?: number | null): Promise<void>;
  /** Reads the session again (after an event concerning it, or a reconnection). */
  refresh(): Promise<void>;
  reloadHistory(): Promise<void>;
  /** Hides the panel; the session stays open. */
  dismiss(): void;
  /** DELETE /onscreen: the session closes and leaves the queue; the panel hides. */
  closeSession(): Promise<boolean>;
  /** POST /order for the shown session. The reply (or null and `orderError`). */
  placeOrder(order: OrderDraftBody): Promise<OrderReply | null>;
  clearOrderError(): void;
  /** The node says the shown session closed (event). */
  sessionClosed(): void;
  /**
   * The node says an order concerning the shown session completed (event): ours (its reply tells
   * all), or the POS's, whose history records move the balances and, when it promoted, the tier.
   */
  orderCompleted(orderId: number | undefined): Promise<void>;
  /**
   * A void at the store (of any customer's order): the shown customer's history follows. A session
   * still open is read again; one that ended cannot be, so its balances move by the new void records,
   * its tier by the newest tier change the void wrote (a tier its sale got, taken back), and the
   * result of the order voided, if it was this panel's, goes.
   */
  orderVoided(orderId: number | undefined): Promise<void>;
}


/**
 * The customer panel: one session's customer (GET /onscreen), their recent history, and the
 * panel's actions (order, close). Later loads win over earlier ones; a load for a session the panel
 * no longer shows is dropped.
 */
export function createCustomerStore(deps: { api: Pick<TerminalApi, 'retrieve' | 'close'>; orders: OrdersApi; history: HistoryApi; autoReloadFollowDelays?: readonly number[] }) {
  let loadSeq = 0;
  let historySeq = 0;
  const followDelays = deps.autoReloadFollowDelays ?? AUTO_RELOAD_FOLLOW_DELAYS;
  let followTimer: ReturnType<typeof setTimeout> | null = null;
  // What the last read of the customer said of their tier: after an order it is the tier before it,
  // the one a void of that order goes back to (the history's tier change names it only).
  let tierAtRead: CustomerAtCounter['rules']['tier'] | null = null;
  // Its loyalty balances, likewise: what a void of that order brings them back to, expirations included.
  let loyaltyAtRead: CustomerAtCounter['loyalty_balance']['data'] = [];
  // The order that ended the shown session (the panel's or the POS's), so its void can say so.
  let endingOrderId: number | null = null;
  // What the node said of the shown session while the panel's order was on its way: its own events
  // (session closed, order completed) come before a reply that may never arrive.
  let duringOrder: { closed: boolean; completed: boolean; orderId: number | null } | null = null;
  const stopFollowing = () => {
    if (followTimer !== null) clearTimeout(followTimer);
    followTimer = null;
  };

  return createStore<CustomerState>()((set, get) => {
    const idle = {
      hash: null,
      sessionId: null,
      phase: 'idle' as const,
      customer: null,
      error: null,
      ended: null,
      voidedReceipt: null,
      history: null,
      historyPhase: 'idle' as const,
      historyError: null,
      lastOrder: null,
      busy: null,
      orderError: null,
      orderErrorField: null,
      closeError: null,
      autoReload: null,
    };

    /**
     * The auto reload the panel's order queued, once the history has its record: the quick-pay
     * balance follows the one the record states (the session ended with the order, so the panel
     * cannot read the customer again), and the order's result says it arrived or was declined.
     */
    function settleAutoReload(): void {
      const { autoReload, history } = get();
      if (autoReload?.status !== 'waiting' || !history) return;
      const record = autoReloadAfter(history, autoReload.receipt);
      if (!record) return;
      const declined = record.status === 'Declined';
      stopFollowing();
      set((s) => ({
        customer: s.customer && applyHistoryRecord(s.customer, record),
        autoReload: { status: declined ? 'declined' : 'arrived', receipt: autoReload.receipt, amount: declined ? Math.abs(record.total) : record.quickpay.loaded, balance: record.quickpay.balance },
      }));
    }

    /** Reads the history again now and then until the queued auto reload shows in it (or the panel moves on). */
    function followAutoReload(hash: string, receipt: string, step = 0): void {
      stopFollowing();
      const delay = followDelays[step];
      if (delay === undefined) return;
      followTimer = setTimeout(() => {
        followTimer = null;
        const still = () => get().hash === hash && get().autoReload?.status === 'waiting' && get().autoReload?.receipt === receipt;
        if (!still()) return;
        void get()
          .reloadHistory()
          .then(() => {
            if (still()) followAutoReload(hash, receipt, step + 1);
          });
      }, delay);
    }

    /**
     * Moves the panel by the order the history gained since `before` (its newest new record, when
     * that is an order); whether there was one.
     */
    function applyFreshOrder(before: readonly HistoryRecord[]): boolean {
      const seen = new Set(before.map((r) => r.id));
      const fresh = (get().history ?? []).filter((r) => !seen.has(r.id));
      const newest = fresh[0];
      if (newest?.object !== 'order') return false;
      // A sale that promoted writes its tier change beside its record (older than it, same moment).
      const promotion = fresh.find((r) => tierMovedTo(r) !== null);
      const stated = tierAtRead ? [tierAtRead] : [];
      set((s) => {
        const moved = s.customer && applyHistoryRecord(s.customer, newest);
        return { customer: moved && promotion ? withTierMove(moved, promotion, stated) : moved };
      });
      return true;
    }

    /**
     * An order the panel did not place (the POS's, another screen's), or its own whose reply was
     * lost, ended the shown session: its history record carries what moved.
     */
    async function adoptCompletedOrder(hash: string, orderId: number | null): Promise<void> {
      const { history } = get();
      endingOrderId = orderId;
      set({ ended: 'order', orderError: null });
      await get().reloadHistory();
      if (!history || get().hash !== hash || get().lastOrder) return;
      applyFreshOrder(history);
    }

    /**
     * The node no longer has the shown session open, and no event said so: it ended while this
     * screen heard nothing (offline, the node restarting). The panel ends as the events would have
     * ended it — by the order its history gained since `before` (balances moved by it), else as
     * closed elsewhere — instead of offering actions on a session that is gone, with old balances.
     */
    async function sessionGone(hash: string, before: readonly HistoryRecord[] | null): Promise<void> {
      await get().reloadHistory();
      if (get().hash !== hash || get().ended) return;
      const byOrder = before !== null && applyFreshOrder(before);
      set({ ended: byOrder ? 'order' : 'closed', error: null, orderError: null });
    }

    /** Reads the session; `before`: the history shown before a refresh, for a session found gone (sessionGone). */
    async function load(hash: string, before: readonly HistoryRecord[] | null = null): Promise<void> {
      const seq = ++loadSeq;
      try {
        const customer = await deps.api.retrieve(hash);
        if (seq !== loadSeq || get().hash !== hash) return;
        tierAtRead = customer.rules.tier;
        loyaltyAtRead = customer.loyalty_balance.data;
        set({ phase: 'ready', customer, error: null, sessionId: Number(customer.pos_session.pos_session_id) });
        if (get().historyPhase === 'idle') void get().reloadHistory();
      } catch (error) {
        if (seq !== loadSeq || get().hash !== hash) return;
        if (get().customer && error instanceof NodeApiError && error.code === 'session_not_found') {
          await sessionGone(hash, before);
          return;
        }
        set((s) => (s.customer ? { error: errorMessage(error) } : { phase: 'error', error: errorMessage(error) }));
      }
    }

    return {
      ...idle,
      async open(hash, sessionId = null) {
        if (get().hash === hash && get().phase !== 'error' && !get().ended) return;
        stopFollowing();
        tierAtRead = null;
        loyaltyAtRead = [];
        endingOrderId = null;
        set({ ...idle, hash, sessionId, phase: 'loading' });
        await load(hash);
      },
      async refresh() {
        const { hash, ended } = get();
        if (!hash || ended) return;
        const before = get().history;
        await Promise.all([load(hash, before), get().reloadHistory()]);
      },
      async reloadHistory() {
        const userId = get().customer?.user.id;
        if (!userId) return;
        const seq = ++historySeq;
        set((s) => ({ historyPhase: s.history ? s.historyPhase : 'loading' }));
        try {
          const page = await deps.history.list(userId, { limit: HISTORY_LIMIT });
          if (seq !== historySeq || get().customer?.user.id !== userId) return;
          set({ history: page.data, historyPhase: 'ready', historyError: null });
          settleAutoReload();
        } catch (error) {
          if (seq !== historySeq) return;
          set((s) => ({ historyPhase: s.history ? 'ready' : 'error', historyError: errorMessage(error) }));
        }
      },
      dismiss() {
        stopFollowing();
        tierAtRead = null;
        loyaltyAtRead = [];
        loadSeq++;
        historySeq++;
        set(idle);
      },
      async closeSession() {
        const { hash, busy } = get();
        if (!hash || busy) return false;
        set({ busy: 'closing', closeError: null });
        try {
          await deps.api.close(hash);
          if (get().hash === hash) get().dismiss();
          return true;
        } catch (error) {
          if (get().hash === hash) set({ busy: null, closeError: errorMessage(error) });
          return false;
        }
      },
      async placeOrder(order) {
        const { hash, busy, ended } = get();
        if (!hash || busy || ended) return null;
        set({ busy: 'ordering', orderError: null, orderErrorField: null });
        duringOrder = { closed: false, completed: false, orderId: null };
        try {
          const reply = await deps.orders.place({ ...order, pos_session_hash: hash });
          duringOrder = null;
          if (get().hash !== hash) return reply;
          endingOrderId = reply.id;
          set((s) => ({
            busy: null,
            lastOrder: reply,
            // The order closed the session: the panel keeps the customer with the balances after it.
            ended: 'order',
            customer: s.customer && withOrderBalances(s.customer, reply),
            autoReload: reply.auto_reload_queued ? { status: 'waiting', receipt: reply.receipt_number } : null,
          }));
          void get().reloadHistory();
          if (reply.auto_reload_queued) followAutoReload(hash, reply.receipt_number);
          return reply;
        } catch (error) {
          const meanwhile = duringOrder;
          duringOrder = null;
          if (get().hash !== hash) return null;
          // The node completed an order for this session while ours was on its way and our reply was
          // lost: it was ours. The panel ends as after any order, never "closed elsewhere" (which
          // had the cashier ring the sale up again).
          if (meanwhile?.completed) {
            set({ busy: null });
            await adoptCompletedOrder(hash, meanwhile.orderId);
            return null;
          }
          const refused = error instanceof NodeApiError && error.status !== null ? error : null;
          // The session is gone and no event said so (missed while the screen was away): end as they would have.
          if (refused?.code === 'session_not_found' && !meanwhile?.closed) {
            set({ busy: null });
            await sessionGone(hash, get().history);
            return null;
          }
          set({ busy: null, orderError: errorMessage(error), orderErrorField: refused?.field ?? null, ...(meanwhile?.closed ? { ended: 'closed' as const } : {}) });
          // The node refused with the balances it holds, which may have moved since the panel read them
          // (spent at another store, in the app): read them again, so the form checks what is there.
          if (refused && !meanwhile?.closed) void load(hash);
          return null;
        }
      },
      clearOrderError() {
        set({ orderError: null, orderErrorField: null });
      },
      sessionClosed() {
        const { hash, ended, busy } = get();
        if (!hash || ended || busy === 'closing') return;
        // Most likely by our own order: its outcome decides.
        if (busy === 'ordering' && duringOrder) {
          duringOrder.closed = true;
          return;
        }
        set({ ended: 'closed' });
      },
      async orderCompleted(orderId) {
        const { hash, lastOrder, customer, busy } = get();
        if (!hash || !customer) return;
        // Our own order: its reply (maybe still on its way) brings the balances after it.
        if (busy === 'ordering') {
          if (duringOrder) Object.assign(duringOrder, { completed: true, orderId: orderId ?? null });
          return;
        }
        if (lastOrder && lastOrder.id === orderId) return;
        await adoptCompletedOrder(hash, orderId ?? null);
      },
      async orderVoided(orderId) {
        const { hash, customer, ended, history } = get();
        if (!hash || !customer) return;
        if (!ended) {
          await get().refresh();
          return;
        }
        await get().reloadHistory();
        if (!history || get().hash !== hash) return;
        const seen = new Set(history.map((r) => r.id));
        const fresh = (get().history ?? []).filter((r) => !seen.has(r.id));
        // Oldest first, so the last quick-pay balance applied is the newest.
        const voids = fresh.filter((r) => r.object === 'void').reverse();
        if (voids.length === 0) return;
        // Newest first in the page: the first tier change is the tier the member holds now.
        const tierMove = fresh.find((r) => tierMovedTo(r) !== null);
        const stated = tierAtRead ? [tierAtRead] : [];
        // The sale that ended the session, voided: the panel says so instead of "Order complete".
        const endingVoided = ended === 'order' && orderId !== undefined && orderId === endingOrderId;
        set((s) => {
          const moved = s.customer && voids.reduce((c, record) => applyHistoryRecord(c, record, loyaltyAtRead), s.customer);
          return {
            ...(endingVoided ? { ended: 'voided' as const, voidedReceipt: s.lastOrder?.id === orderId ? s.lastOrder.receipt_number : readHistoryRecord(voids[voids.length - 1]!).receipt } : {}),
            customer: moved && tierMove ? withTierMove(moved, tierMove, stated) : moved,
            lastOrder: s.lastOrder && orderId !== undefined && s.lastOrder.id === orderId ? null : s.lastOrder,
          };
        });
      },
    };
  });
}

export type CustomerStore = ReturnType<typeof createCustomerStore>;
