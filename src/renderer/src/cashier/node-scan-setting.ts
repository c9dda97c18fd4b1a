import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import type { StoreEventMessage } from '../events/event-stream';

// Every cashier screen of a store hears the scans of the node's scanners, but the scanner sits at one
// counter: a screen at another counter (which has a wedge scanner of its own) turns this off so a
// customer scanned elsewhere only joins its queue. Kept per browser, like the wedge capture.

export interface NodeScanSettingState {
  /** Scans at the node's scanners open the customer in this screen's panel (when free). On by default. */
  opensPanel: boolean;
  setOpensPanel(opensPanel: boolean): void;
}

const STORAGE_KEY = 'punchcard.nodeScans';

function storedOpensPanel(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) !== 'queue';
  } catch {
    return true;
  }
}

export function createNodeScanSetting() {
  return createStore<NodeScanSettingState>()((set) => ({
    opensPanel: storedOpensPanel(),
    setOpensPanel(opensPanel) {
      try {
        localStorage.setItem(STORAGE_KEY, opensPanel ? 'open' : 'queue');
      } catch {
        // Private mode: the choice lasts until the page reloads.
      }
      set({ opensPanel });
    },
  }));
}

export const nodeScanSetting = createNodeScanSetting();

export function useNodeScanSetting<T>(selector: (state: NodeScanSettingState) => T): T {
  return useStore(nodeScanSetting, selector);
}

/**
 * Whether a session event may open its customer in this screen's panel: one from a scanner of the
 * node (any station) only when this screen takes the node's scans; a check-in typed, wedge-scanned
 * or signed up at a counter's screen only on that screen (`screen`, the screen's id); one made at a
 * kiosk (a customer now waiting for any counter), by the POS or by an app, always.
 */
export function mayOpenPanel(event: Pick<StoreEventMessage, 'by' | 'screen'>, nodeScansOpenHere: boolean, thisScreen: string): boolean {
  if (event.screen !== undefined && event.by !== 'kiosk') return event.screen === thisScreen;
  return nodeScansOpenHere || event.by !== 'scanner';
}
