import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { errorMessage, NodeApiError } from '../api/client';
import type { ScanReply, TerminalApi } from '../api/terminal-api';
import { useWedgeStrings } from './strings';
import { toastStore } from './toast-store';

/**
 * Where a captured line goes instead of the default POST /app/scans: a screen that wants to run its
 * own flow (the kiosk shows "one moment", the welcome or a retry screen) registers one. It must post
 * the line itself and resolve with the node's reply or reject with its error.
 */
export type WedgeSink = (line: string) => Promise<ScanReply>;

export type WedgeOutcome = { ok: true; masked: string } | { ok: false; message: string };

export interface WedgeState {
  /** This screen captures keyboard-wedge scans (kept per browser; on by default). */
  enabled: boolean;
  /** Date.now() of the last captured scan. */
  lastScanAt: number | null;
  /** What the node made of it (the number masked, never the raw line). */
  lastOutcome: WedgeOutcome | null;
  sink: WedgeSink | null;
  setEnabled(enabled: boolean): void;
  /** Routes captured lines to `sink` until the returned function is called. */
  claim(sink: WedgeSink): () => void;
  /** Posts a captured line (through the sink, if any) and records how it went. */
  deliver(api: Pick<TerminalApi, 'scan'>, line: string): Promise<void>;
}

const STORAGE_KEY = 'punchcard.wedge';

function storedEnabled(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) !== 'off';
  } catch {
    return true;
  }
}

/** The message to show for a failed scan: the node's own, or ours when it could not be reached. */
export function scanFailureMessage(error: unknown): string {
  if (error instanceof NodeApiError && error.unreachable) return useWedgeStrings.now().unreachable;
  return errorMessage(error);
}

/** The toast a refused scan gets where no flow of a screen's own says what happened. */
export function toastScanFailure(message: string): void {
  toastStore.getState().push({ title: useWedgeStrings.now().scanFailed, message, tone: 'error' });
}

/** The same failure told again this soon (a licence's lines, refused one by one) is not toasted again. */
const SAME_TOAST_MS = 3_000;

export function createWedgeStore(now: () => number = Date.now) {
  // Lines reach the node in the order they were read: a licence's header before its other lines
  // (which the node refuses as its rest only after it), one scan's reply before the next is sent.
  let delivering: Promise<void> = Promise.resolve();
  let lastToast: { message: string; at: number } | null = null;
  return createStore<WedgeState>()((set, get) => ({
    enabled: storedEnabled(),
    lastScanAt: null,
    lastOutcome: null,
    sink: null,
    setEnabled(enabled) {
      try {
        localStorage.setItem(STORAGE_KEY, enabled ? 'on' : 'off');
      } catch {
        // Private mode: the choice lasts until the page reloads.
      }
      set({ enabled });
    },
    claim(sink) {
      set({ sink });
      return () => {
        if (get().sink === sink) set({ sink: null });
      };
    },
    deliver(api, line) {
      set({ lastScanAt: now() });
      const sent = delivering.then(async () => {
        const sink = get().sink;
        try {
          const reply = sink ? await sink(line) : await api.scan(line);
          set({ lastOutcome: { ok: true, masked: reply.scan.masked } });
        } catch (error) {
          const message = scanFailureMessage(error);
          set({ lastOutcome: { ok: false, message } });
          // A screen with its own flow shows its own message; elsewhere a toast says what happened, once.
          const repeated = lastToast !== null && lastToast.message === message && now() - lastToast.at < SAME_TOAST_MS;
          if (!sink && !repeated) toastScanFailure(message);
          if (!sink) lastToast = { message, at: now() };
        }
      });
      delivering = sent;
      return sent;
    },
  }));
}

export const wedgeStore = createWedgeStore();

export function useWedge<T>(selector: (state: WedgeState) => T): T {
  return useStore(wedgeStore, selector);
}
