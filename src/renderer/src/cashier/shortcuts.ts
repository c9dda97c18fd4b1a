// Cashier keyboard shortcuts: which key does what, and a gate that keeps a keyboard-wedge scanner
// (a fast burst of characters ending in Enter) from firing single-key shortcuts as it types.

export type ShortcutAction = 'focusCheckIn' | 'next' | 'previous' | 'open' | 'order' | 'closeSession' | 'register' | 'help' | 'leaveField';

export interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/** What the key was pressed on. */
export interface KeyTarget {
  /** A text field, select or editable element: letters are typing, not shortcuts. */
  editable: boolean;
  /** A button or link: Enter activates it natively. */
  activatable: boolean;
  /** A dialog is open: only its own keys apply. */
  dialogOpen: boolean;
  /** Inside the customer panel (its name, an order's result): Enter there is not the queue's. */
  inPanel?: boolean;
}

/** A key as the help and the buttons name it; `keyName` (strings) says it in the screen's language (Spanish keeps "Enter", as Latin American keyboards say). */
export type KeyToken = 'F2' | '/' | '↓' | '↑' | 'J' | 'K' | 'Enter' | 'O' | 'Ctrl' | 'X' | 'N' | 'Esc' | '?';

/** One way to press a shortcut: keys held together ("Ctrl" + "Enter"). */
export type KeyCombo = readonly KeyToken[];

/**
 * Places the order in the order form: Ctrl+Enter (⌘+Enter on a Mac) from anywhere in it. The help
 * and the form's button show it from here, so they name the same keys in every language.
 */
export const SUBMIT_ORDER_KEYS: KeyCombo = ['Ctrl', 'Enter'];

/** "Ctrl+Enter": a combination in the screen's words, as the help and the buttons show it. */
export function comboLabel(combo: KeyCombo, keyName: (key: KeyToken) => string): string {
  return combo.map(keyName).join('+');
}

/** The help's list, in order; `keys` are alternatives. Ctrl+Enter (submit the order) and Escape (close) belong to the dialogs. */
export const SHORTCUT_LIST: Array<{ id: ShortcutAction | 'submitOrder' | 'closeDialog'; keys: KeyCombo[] }> = [
  { id: 'focusCheckIn', keys: [['F2'], ['/']] },
  { id: 'next', keys: [['↓'], ['J']] },
  { id: 'previous', keys: [['↑'], ['K']] },
  { id: 'open', keys: [['Enter']] },
  { id: 'order', keys: [['O']] },
  { id: 'submitOrder', keys: [SUBMIT_ORDER_KEYS] },
  { id: 'closeSession', keys: [['X']] },
  { id: 'register', keys: [['N']] },
  { id: 'closeDialog', keys: [['Esc']] },
  { id: 'help', keys: [['?']] },
];

export interface Resolved {
  action: ShortcutAction;
  /** Keys a scanner can type (letters, Enter…) wait for a quiet moment; arrows and F-keys act at once. */
  guarded: boolean;
}

const LETTERS: Record<string, ShortcutAction> = { j: 'next', k: 'previous', o: 'order', x: 'closeSession', n: 'register', '/': 'focusCheckIn', '?': 'help' };

/** The shortcut a key press means here, or null. */
export function resolveShortcut(e: KeyInput, target: KeyTarget): Resolved | null {
  if (e.metaKey || e.altKey) return null;
  if (e.key === 'F2') return target.dialogOpen ? null : { action: 'focusCheckIn', guarded: false };
  if (e.ctrlKey || target.dialogOpen) return null;
  if (target.editable) return e.key === 'Escape' ? { action: 'leaveField', guarded: false } : null;
  if (e.key === 'ArrowDown') return { action: 'next', guarded: false };
  if (e.key === 'ArrowUp') return { action: 'previous', guarded: false };
  if (e.key === 'Enter') return target.activatable || target.inPanel ? null : { action: 'open', guarded: true };
  const action = LETTERS[e.key.length === 1 ? e.key.toLowerCase() : ''];
  return action ? { action, guarded: true } : null;
}

export interface GateClock {
  now(): number;
  schedule(run: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

const realClock: GateClock = {
  now: () => performance.now(),
  schedule: (run, ms) => setTimeout(run, ms),
  cancel: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs a guarded shortcut only when its key stands alone: no key came within `quietMs` before it,
 * and none comes within `quietMs` after (a wedge scanner types a character every few milliseconds;
 * a person does not). Unguarded shortcuts run at once. Every key press must pass through `key`.
 */
export function createShortcutGate(quietMs = 50, clock: GateClock = realClock) {
  let lastKeyAt = -Infinity;
  let pending: unknown = null;
  return {
    key(resolved: Resolved | null, run: (action: ShortcutAction) => void): void {
      const at = clock.now();
      const burst = at - lastKeyAt < quietMs;
      lastKeyAt = at;
      if (pending !== null) {
        clock.cancel(pending);
        pending = null;
      }
      if (!resolved) return;
      if (!resolved.guarded) {
        run(resolved.action);
        return;
      }
      if (burst) return;
      pending = clock.schedule(() => {
        pending = null;
        run(resolved.action);
      }, quietMs);
    },
    /** Drops a shortcut still waiting for quiet (the screen is going away). */
    cancel(): void {
      if (pending !== null) clock.cancel(pending);
      pending = null;
    },
  };
}

/** Marks the customer panel's element (CustomerPanel), for `describeTarget`. */
export const CUSTOMER_PANEL_ATTRIBUTE = 'data-customer-panel';

/** Inputs that take no typed text: letters on them are still shortcuts. */
const NON_TEXT_INPUTS = new Set(['radio', 'checkbox', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image']);

/** Reads a key event's target for `resolveShortcut`. */
export function describeTarget(target: EventTarget | null, dialogOpen: boolean): KeyTarget {
  const el = target instanceof HTMLElement ? target : null;
  const tag = el?.tagName ?? '';
  const textInput = el instanceof HTMLInputElement && !NON_TEXT_INPUTS.has(el.type);
  const editable = Boolean(el && (el.isContentEditable || textInput || tag === 'TEXTAREA' || tag === 'SELECT'));
  const activatable = Boolean(el && (tag === 'BUTTON' || tag === 'A' || el.getAttribute('role') === 'button'));
  const inPanel = Boolean(el?.closest(`[${CUSTOMER_PANEL_ATTRIBUTE}]`));
  return { editable, activatable, dialogOpen, inPanel };
}
