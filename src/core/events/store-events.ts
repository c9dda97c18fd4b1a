import { EventEmitter } from 'node:events';
import type { ScannerStation } from '../../shared/schemas/scanners';

// What happens at a store, published after the change commits, so screens (cashier queue, kiosk)
// update without polling. In-process: each node publishes its own stores' events.

export interface StoreEvent {
  /** sync.changed: a paired store's sync status (link, pending, first sync) changed; read GET /sync/status. */
  type: 'session.opened' | 'session.updated' | 'session.closed' | 'order.completed' | 'order.voided' | 'scan.rejected' | 'sync.changed';
  vendorId: number;
  storeId: number;
  /** The session concerned; for orders, the session the order closed (null when none was open). */
  sessionId: number | null;
  orderId?: number;
  /**
   * Who opened or touched the session (session events of a check-in): cashier, kiosk, integration,
   * app, or scanner (a device read by the node) — so a kiosk greets only scans, not counter check-ins.
   */
  by?: string;
  /**
   * by scanner: the station the scanner serves (counter or kiosk), absent when it is not assigned —
   * a kiosk greets kiosk-station and unassigned scanners' scans, never counter-station ones.
   */
  station?: ScannerStation;
  /**
   * The cashier screen whose check-in (typed, a wedge scan, a sign-up) made the event, as it named
   * itself (`screen` on the request): that screen opens the customer; other screens only queue them.
   */
  screen?: string;
  /** scan.rejected: the error code of a scan the node's scanners read but could not check in. */
  reason?: string;
  /** Epoch milliseconds. */
  at: number;
}

export class StoreEvents {
  readonly #emitter = new EventEmitter();

  constructor() {
    // One listener per open screen; a busy store can have many.
    this.#emitter.setMaxListeners(0);
  }

  publish(event: StoreEvent): void {
    this.#emitter.emit(`store:${event.storeId}`, event);
  }

  /** Calls `listener` for every event of the store; returns the function that stops it. */
  subscribe(storeId: number, listener: (event: StoreEvent) => void): () => void {
    const name = `store:${storeId}`;
    this.#emitter.on(name, listener);
    return () => this.#emitter.off(name, listener);
  }
}
