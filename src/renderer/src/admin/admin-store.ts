import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { errorMessage } from '../api/client';
import { type AdminApi, createAdminApi, type Staff, type StaffSession } from './admin-api';

// The signed-in staff member. The session token lives in sessionStorage: it ends with the tab, and
// the node ends it anyway after 30 idle minutes or 12 hours.

const TOKEN_KEY = 'punchcard.admin.token';

interface AdminState {
  token: string | null;
  staff: Staff | null;
  error: string | null;
  busy: boolean;
  api(): AdminApi;
  /** Runs a sign-in call (password, link, invitation) and keeps its session. */
  begin(signIn: (api: AdminApi) => Promise<StaffSession>): Promise<void>;
  resume(): Promise<void>;
  /** Reads the staff member again: a role or store another owner changed shows from the next screen on. */
  refresh(): Promise<void>;
  signOut(everywhere?: boolean): Promise<void>;
}

const baseUrl = () => window.location.origin;

export const adminStore = createStore<AdminState>()((set, get) => ({
  token: null,
  staff: null,
  error: null,
  busy: false,
  // A session the node ended leaves for the sign-in form with the node's words, not a dead screen.
  api: () =>
    createAdminApi(baseUrl(), get().token, (message) => {
      sessionStorage.removeItem(TOKEN_KEY);
      set({ token: null, staff: null, error: message, busy: false });
    }),
  async begin(signIn) {
    set({ busy: true, error: null });
    try {
      const session = await signIn(createAdminApi(baseUrl(), null));
      sessionStorage.setItem(TOKEN_KEY, session.token);
      set({ token: session.token, staff: session.staff, busy: false });
    } catch (error) {
      set({ error: errorMessage(error), busy: false });
    }
  },
  async resume() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) return;
    try {
      const staff = await createAdminApi(baseUrl(), token).me();
      set({ token, staff });
    } catch {
      sessionStorage.removeItem(TOKEN_KEY);
    }
  },
  async refresh() {
    const token = get().token;
    if (token === null) return;
    try {
      const staff = await get().api().me();
      // Signed out or another session meanwhile: this answer is not the screen's any more.
      if (get().token === token) set({ staff });
    } catch {
      // A session the node ended is handled by api() (back to the sign-in form); anything else waits for the next screen.
    }
  },
  async signOut(everywhere = false) {
    const api = get().api();
    await (everywhere ? api.signOutEverywhere() : api.signOut()).catch(() => undefined);
    sessionStorage.removeItem(TOKEN_KEY);
    set({ token: null, staff: null, error: null });
  },
}));

export function useAdmin<T>(selector: (state: AdminState) => T): T {
  return useStore(adminStore, selector);
}
