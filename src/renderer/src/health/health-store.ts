import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { Health } from '../../../shared/schemas/health';
import { createNodeApi, errorMessage, type NodeApi, NodeApiError, resolveConnection } from '../api/client';

export interface HealthState {
  phase: 'idle' | 'loading' | 'ready' | 'error';
  health: Health | null;
  /** Why the last check failed (the node's message, or the network error); null after a good one. */
  error: string | null;
  /** The last failure was no answer at all (rather than an error answer). */
  unreachable: boolean;
  /** Date.now() of the last answer (good or bad). */
  checkedAt: number | null;
  refresh(): Promise<void>;
}

/** A health store over one node. A refresh cancels the one still in flight. */
export function createHealthStore(api: NodeApi) {
  let inFlight: AbortController | null = null;
  return createStore<HealthState>()((set) => ({
    phase: 'idle',
    health: null,
    error: null,
    unreachable: false,
    checkedAt: null,
    async refresh() {
      inFlight?.abort();
      const controller = new AbortController();
      inFlight = controller;
      set({ phase: 'loading' });
      try {
        const health = await api.health(controller.signal);
        if (controller.signal.aborted) return;
        set({ phase: 'ready', health, error: null, unreachable: false, checkedAt: Date.now() });
      } catch (error) {
        if (controller.signal.aborted) return;
        const reason = errorMessage(error);
        const unreachable = !(error instanceof NodeApiError) || error.unreachable;
        set({ phase: 'error', error: reason, unreachable, checkedAt: Date.now() });
      } finally {
        if (inFlight === controller) inFlight = null;
      }
    },
  }));
}

export type HealthStore = ReturnType<typeof createHealthStore>;

let defaultStore: HealthStore | null = null;

/** The page's store, over the node resolved from the preload or the page origin. */
export function healthStore(): HealthStore {
  defaultStore ??= createHealthStore(createNodeApi(resolveConnection()));
  return defaultStore;
}

export function useHealth<T>(selector: (state: HealthState) => T): T {
  return useStore(healthStore(), selector);
}
