import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { createRequester, errorMessage, NodeApiError, type Requester, resolveConnection } from '../api/client';
import { createTerminalApi, type Terminal, type TerminalApi } from '../api/terminal-api';
import { languageStore } from '../i18n/language-store';

/** Where a browser (tablet kiosk, back-office PC) keeps the store key it was given at login. */
const STORAGE_KEY = 'punchcard.apiKey';

export interface SessionState {
  /**
   * signed-out: no key yet (browser), or the node refused it;
   * checking: asking the node who the key is; ready: the screens may run;
   * unreachable: the node did not answer (retry keeps the key).
   */
  phase: 'signed-out' | 'checking' | 'ready' | 'unreachable';
  /** Origin of the node the page talks to. */
  baseUrl: string;
  terminal: Terminal | null;
  api: TerminalApi | null;
  /** Why the last login or check failed, as the node said it. */
  error: string | null;
  /** True inside the desktop app: the key comes from the preload and cannot be changed here. */
  fromDesktop: boolean;
  /**
   * Asks the node again whether it takes the key the screens run with (the event stream was
   * refused): a key it no longer takes (a restart with new keys, revoked) signs out with its
   * message; anything else (unreachable, busy) leaves the screens as they are.
   */
  recheck(): Promise<void>;
  /** Checks the key with the node (GET /app/terminal) and keeps it when the node accepts it. */
  signIn(apiKey: string): Promise<boolean>;
  /** Re-checks the kept key (start-up, or after the node was unreachable). */
  resume(): Promise<void>;
  /** Forgets the key (browser only). */
  signOut(): void;
}

function readStoredKey(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function writeStoredKey(key: string | null): void {
  try {
    if (key === null) localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Private mode: the key lasts until the page reloads.
  }
}

/**
 * The screen's identity: which store key it uses and what the node says that key is. In Electron
 * the preload supplies the key; in a browser a login step asks for it and keeps it locally.
 */
export function createSessionStore(win: Pick<Window, 'punchcard' | 'location'> = window, fetchImpl?: typeof fetch) {
  const connection = resolveConnection(win);
  const request: Requester = createRequester({ baseUrl: connection.baseUrl, credential: null }, fetchImpl);
  const fromDesktop = Boolean(win.punchcard);
  let pendingKey: string | null = connection.credential ?? readStoredKey();

  return createStore<SessionState>()((set, get) => {
    async function check(apiKey: string): Promise<boolean> {
      set({ phase: 'checking', error: null });
      const api = createTerminalApi(request, apiKey);
      try {
        const terminal = await api.terminal();
        languageStore.getState().suggest(terminal.language);
        set({ phase: 'ready', terminal, api, error: null });
        return true;
      } catch (error) {
        const message = errorMessage(error);
        if (error instanceof NodeApiError && error.unreachable) {
          set({ phase: 'unreachable', error: message });
        } else {
          set({ phase: 'signed-out', terminal: null, api: null, error: message });
        }
        return false;
      }
    }

    return {
      phase: pendingKey ? 'checking' : 'signed-out',
      baseUrl: connection.baseUrl,
      terminal: null,
      api: null,
      error: null,
      fromDesktop,
      async signIn(apiKey) {
        const key = apiKey.trim();
        if (!key) return false;
        const ok = await check(key);
        if (ok || get().phase === 'unreachable') {
          pendingKey = key;
          if (!fromDesktop) writeStoredKey(key);
        }
        return ok;
      },
      async resume() {
        if (!pendingKey) {
          set({ phase: 'signed-out' });
          return;
        }
        const ok = await check(pendingKey);
        if (!ok && get().phase === 'signed-out' && !fromDesktop) {
          pendingKey = null;
          writeStoredKey(null);
        }
      },
      async recheck() {
        const api = get().api;
        if (get().phase !== 'ready' || !api) return;
        try {
          await api.terminal();
        } catch (error) {
          if (error instanceof NodeApiError && (error.status === 401 || error.status === 403) && get().api === api) {
            set({ phase: 'signed-out', terminal: null, api: null, error: errorMessage(error) });
          }
        }
      },
      signOut() {
        if (fromDesktop) return;
        pendingKey = null;
        writeStoredKey(null);
        set({ phase: 'signed-out', terminal: null, api: null, error: null });
      },
    };
  });
}

export type SessionStore = ReturnType<typeof createSessionStore>;

let pageStore: SessionStore | null = null;

/** The page's session store. */
export function sessionStore(): SessionStore {
  pageStore ??= createSessionStore();
  return pageStore;
}

export function useSession<T>(selector: (state: SessionState) => T): T {
  return useStore(sessionStore(), selector);
}

/** The terminal API of a ready session; screens below the login step may rely on it. */
export function useTerminalApi(): TerminalApi {
  const api = useSession((state) => state.api);
  if (!api) throw new Error('useTerminalApi outside a ready session');
  return api;
}
