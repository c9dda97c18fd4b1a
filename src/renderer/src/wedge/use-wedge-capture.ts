import { useEffect } from 'react';
import { useSession } from '../session/session-store';
import { isEditable, isTextField, removeScannedText } from './field-cleanup';
import { createWedgeDetector, WEDGE_DEFAULTS } from './wedge-detector';
import { useWedge, wedgeStore } from './wedge-store';

/** How long a lone character outside a text field waits to see whether a burst follows. */
export const SHORTCUT_HOLD_MS = WEDGE_DEFAULTS.maxGapMs + 10;
/** How long the characters of a burst wait for their Enter before they count as keys after all. */
const BURST_HOLD_MS = WEDGE_DEFAULTS.jitterGapMs + 10;

interface HeldKey {
  target: EventTarget;
  init: KeyboardEventInit;
}

function initOf(event: KeyboardEvent): KeyboardEventInit {
  return {
    key: event.key,
    code: event.code,
    location: event.location,
    shiftKey: event.shiftKey,
    ctrlKey: event.ctrlKey,
    altKey: event.altKey,
    metaKey: event.metaKey,
    repeat: event.repeat,
    bubbles: true,
    cancelable: true,
    composed: true,
  };
}

/**
 * Keyboard-wedge capture for the whole page, installed once (App.tsx) and active for cashier and
 * kiosk keys while capture is on (Settings). Listens to keydown on window in the capture phase, so
 * it sees keys before any field or shortcut handler.
 *
 * - In a text field, characters pass through at once (typing is never delayed or altered). When the
 *   Enter/Tab of a scan comes it is swallowed (no form submit, no focus move), the line is posted,
 *   and the scanned text is taken out of the field again: a scan is never both posted and typed.
 * - Elsewhere, a character is held for SHORTCUT_HOLD_MS (60 ms): if a fast burst follows, the
 *   characters belong to a scan and never reach single-key shortcuts (the cashier's "N", "?"…);
 *   otherwise the key is replayed to its target as a keydown, so shortcuts fire ~60 ms later.
 *   Space, Enter, Tab, arrows and keys with Ctrl/Alt/Meta are never held.
 */
export function useWedgeCapture(): void {
  const api = useSession((s) => s.api);
  const role = useSession((s) => s.terminal?.role);
  const enabled = useWedge((s) => s.enabled);

  useEffect(() => {
    if (!api || !enabled || (role !== 'cashier' && role !== 'kiosk')) return;
    const detector = createWedgeDetector();
    const replayed = new WeakSet<Event>();
    let held: HeldKey[] = [];
    let holdTimer: ReturnType<typeof setTimeout> | undefined;
    let settle: ReturnType<typeof setTimeout> | undefined;

    const deliver = (line: string) => {
      const focused = document.activeElement;
      if (isTextField(focused)) removeScannedText(focused, line);
      void wedgeStore.getState().deliver(api, line);
    };

    /** The held keys were typing after all: hand them to their targets, in order. */
    const replay = () => {
      clearTimeout(holdTimer);
      const keys = held;
      held = [];
      for (const { target, init } of keys) {
        const event = new KeyboardEvent('keydown', init);
        replayed.add(event);
        const node = target instanceof Node && !target.isConnected ? document.body : target;
        node.dispatchEvent(event);
      }
    };

    /** The held keys were the start of a scan: forget them. */
    const drop = () => {
      clearTimeout(holdTimer);
      held = [];
    };

    const onKeyDown = (event: KeyboardEvent) => {
      if (replayed.has(event) || event.isComposing) return;
      const shortcut = (event.ctrlKey || event.altKey || event.metaKey) && !event.getModifierState('AltGraph');
      const step = detector.feed({ key: event.key, at: event.timeStamp, repeat: event.repeat, shortcut });
      if (step.line !== undefined) deliver(step.line);

      const stop = () => {
        event.preventDefault();
        event.stopImmediatePropagation();
      };
      const holdable = event.key.length === 1 && event.key !== ' ' && !shortcut && !event.repeat && !isEditable(event.target);

      if (step.action === 'swallow') {
        stop();
        drop();
      } else if (holdable && event.target) {
        stop();
        if (!step.inBurst) replay(); // a new run starts: whatever was held before it was typing
        held.push({ target: event.target, init: initOf(event) });
        clearTimeout(holdTimer);
        holdTimer = setTimeout(replay, held.length > 1 ? BURST_HOLD_MS : SHORTCUT_HOLD_MS);
      } else if (NEUTRAL_KEYS.has(event.key) && held.length > 0) {
        // Shift inside a held burst: it travels with the characters (their init carries shiftKey).
        stop();
      } else {
        replay();
      }

      if (step.pending) {
        clearTimeout(settle);
        // This timer is the wait: every new track restarts it, so when it fires the held swipe has
        // settled. Not flush(performance.now()): a key's timeStamp may run ahead of that clock (a
        // burst dispatched faster than its stamps say), and the swipe would be dropped unposted.
        settle = setTimeout(() => {
          const line = detector.flush(Number.POSITIVE_INFINITY);
          if (line !== null) deliver(line);
        }, WEDGE_DEFAULTS.trackSettleMs + 20);
      }
    };
    // A scan never spans a switch of window or tab.
    const onBlur = () => {
      replay();
      detector.reset();
    };

    window.addEventListener('keydown', onKeyDown, { capture: true });
    window.addEventListener('blur', onBlur);
    return () => {
      clearTimeout(settle);
      replay();
      window.removeEventListener('keydown', onKeyDown, { capture: true });
      window.removeEventListener('blur', onBlur);
    };
  }, [api, enabled, role]);
}

const NEUTRAL_KEYS = new Set(['Shift', 'CapsLock', 'AltGraph', 'NumLock']);
