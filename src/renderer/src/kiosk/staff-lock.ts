import { createStore } from 'zustand/vanilla';
import { NodeApiError } from '../api/client';
import type { Terminal } from '../api/terminal-api';

/** Wrong keys in a row before the lock refuses every try for a while. */
export const STAFF_LOCK_MAX_TRIES = 5;
/** How long the lock refuses after too many wrong keys (client side: a reload resets it). */
export const STAFF_LOCK_COOLDOWN_MS = 60_000;
/** The staff dialog closes itself after this long without a key typed (back to the plain kiosk). */
export const STAFF_LOCK_IDLE_MS = 45_000;

/**
 * Why the last try did not open Settings: `wrong` (not a key of this store: unknown, revoked, or of
 * another store; counted), `unreachable` (the node did not answer; not counted), `failed` (the node
 * answered something else, e.g. a 5xx; not counted).
 */
export type StaffLockError = 'wrong' | 'unreachable' | 'failed';

export interface StaffLockState {
  /** The "Staff only" dialog is up. */
  open: boolean;
  /** A typed key is being checked with the node. */
  checking: boolean;
  error: StaffLockError | null;
  /** Wrong keys in a row (reset by a right key and when a refusal period ends). */
  failures: number;
  /** Date.now() until which every try is refused; null when not locked. */
  lockedUntil: number | null;
  /** A scan came while the dialog was open and was ignored (the dialog says so until it closes). */
  scanIgnored: boolean;
  /** Shows the dialog (the gear). */
  show(): void;
  /** Closes the dialog (Cancel, Escape, idle); a check under way is dropped, its reply ignored. */
  close(): void;
  /** Someone is typing in the dialog: restarts its idle timer. */
  touch(): void;
  /**
   * A scan reached the kiosk while the dialog is open: staff are at the kiosk, so it is not checked
   * in behind the dialog. True when the dialog is open (the scan is to be ignored).
   */
  ignoresScan(): boolean;
  /**
   * Checks a typed key; true when it is a key of this kiosk's own store (the dialog then closes and
   * the caller opens Settings). The key is passed on to `terminalOf` and forgotten: never kept.
   */
  submit(key: string): Promise<boolean>;
  dispose(): void;
}

/** Who a key acts for: GET /app/terminal with that key (only the fields the lock compares). */
export type TerminalOf = (apiKey: string) => Promise<Pick<Terminal, 'vendor' | 'store'>>;

export interface StaffLockOptions {
  maxTries?: number;
  cooldownMs?: number;
  idleMs?: number;
  now?: () => number;
}

/** The node refused the key itself (unknown, revoked, not allowed): a wrong try. */
function isRefusedKey(error: unknown): boolean {
  if (!(error instanceof NodeApiError) || error.unreachable) return false;
  if (error.code === 'invalid_api_key' || error.code === 'missing_credentials' || error.code === 'forbidden') return true;
  return error.status === 400 || error.status === 401 || error.status === 403 || error.status === 404;
}

/**
 * Who may leave a browser kiosk for Settings: anyone who types an API key of the kiosk's own store
 * (a cashier or kiosk key: staff have them). `terminalOf` asks the node about the typed key;
 * `own` is the kiosk's own terminal. After `maxTries` wrong keys in a row every try is refused for
 * `cooldownMs`. No DOM, so it is tested with a fake node and fake timers.
 */
export function createStaffLock(terminalOf: TerminalOf, own: Pick<Terminal, 'vendor' | 'store'>, options: StaffLockOptions = {}) {
  const maxTries = options.maxTries ?? STAFF_LOCK_MAX_TRIES;
  const cooldownMs = options.cooldownMs ?? STAFF_LOCK_COOLDOWN_MS;
  const idleMs = options.idleMs ?? STAFF_LOCK_IDLE_MS;
  const now = options.now ?? Date.now;

  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let lockTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by close: the reply of a check started before is dropped. */
  let run = 0;

  return createStore<StaffLockState>()((set, get) => {
    function armIdle() {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => get().close(), idleMs);
    }

    function locked(): boolean {
      const until = get().lockedUntil;
      if (until === null) return false;
      if (now() < until) return true;
      unlockPeriodOver();
      return false;
    }

    function unlockPeriodOver() {
      clearTimeout(lockTimer);
      lockTimer = undefined;
      set({ lockedUntil: null, failures: 0, error: null });
    }

    function wrong() {
      const failures = get().failures + 1;
      if (failures < maxTries) {
        set({ failures, error: 'wrong' });
        return;
      }
      set({ failures, error: 'wrong', lockedUntil: now() + cooldownMs });
      clearTimeout(lockTimer);
      lockTimer = setTimeout(unlockPeriodOver, cooldownMs);
    }

    return {
      open: false,
      checking: false,
      error: null,
      failures: 0,
      lockedUntil: null,
      scanIgnored: false,
      show() {
        locked(); // a refusal period that is over is forgotten
        set({ open: true, checking: false, error: null, scanIgnored: false });
        armIdle();
      },
      close() {
        run += 1;
        clearTimeout(idleTimer);
        idleTimer = undefined;
        // The wrong-key count and a refusal period stay: Cancel buys no new tries.
        set({ open: false, checking: false, error: null, scanIgnored: false });
      },
      touch() {
        if (get().open) armIdle();
      },
      ignoresScan() {
        if (!get().open) return false;
        set({ scanIgnored: true });
        return true;
      },
      async submit(typed) {
        const key = typed.trim();
        const state = get();
        if (!state.open || state.checking || !key || locked()) return false;
        const current = ++run;
        armIdle();
        set({ checking: true, error: null });
        let verdict: 'ok' | StaffLockError;
        try {
          const terminal = await terminalOf(key);
          verdict = terminal.store.id === own.store.id && terminal.vendor.id === own.vendor.id ? 'ok' : 'wrong';
        } catch (error) {
          verdict = isRefusedKey(error) ? 'wrong' : error instanceof NodeApiError && error.unreachable ? 'unreachable' : 'failed';
        }
        if (current !== run) return false;
        set({ checking: false });
        if (verdict === 'ok') {
          clearTimeout(idleTimer);
          idleTimer = undefined;
          set({ open: false, error: null, failures: 0, scanIgnored: false });
          return true;
        }
        if (verdict === 'wrong') wrong();
        else set({ error: verdict });
        return false;
      },
      dispose() {
        run += 1;
        clearTimeout(idleTimer);
        clearTimeout(lockTimer);
        idleTimer = lockTimer = undefined;
      },
    };
  });
}

export type StaffLock = ReturnType<typeof createStaffLock>;

/**
 * How Settings is reached from the kiosk screen. In the desktop app (the preload's bridge is there)
 * the kiosk window's key is minted at every start and known to nobody, so no key could open the
 * lock: the gear is not shown and staff use the cashier window's Settings. In a browser the gear
 * asks for a key of the store.
 */
export function kioskSettingsAccess(win: Pick<Window, 'punchcard'>): 'hidden' | 'staff-key' {
  return win.punchcard ? 'hidden' : 'staff-key';
}
