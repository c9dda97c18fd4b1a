import { createStore } from 'zustand/vanilla';
import { errorMessage, NodeApiError } from '../api/client';
import type { CustomerAtCounter, ScanReply, TerminalApi } from '../api/terminal-api';
import { useKioskStrings } from './strings';

/** How long the welcome stays up before the kiosk is ready for the next customer. */

/** Why a kiosk asks to try again: nobody has that identification, the scan was unreadable, or it was a card that is no identification here (a bank card, a driver's licence). */
export type RetryReason = 'not-found' | 'unreadable' | 'wrong-card';

/** The node's refusal of a scan, as the kiosk's retry screen tells it. */
function retryReasonOf(code: string | null): RetryReason {
  if (code === 'unreadable_scan') return 'unreadable';
  if (code === 'payment_card_scanned' || code === 'id_document_scanned') return 'wrong-card';
  return 'not-found';
}

export const KIOSK_WELCOME_MS = 8_000;
/** How long "we couldn't find you" and error screens stay up. */
export const KIOSK_RETRY_MS = 10_000;
/** A half-typed identification or phone number is dropped after this long without a touch or key. */
export const KIOSK_INPUT_IDLE_MS = 45_000;

export interface KioskWelcome {
  sessionId: number;
  /** null for a guest registered without a name ("Guest" at the node): the greeting has no name. */
  firstName: string | null;
  tier: string | null;
  points: Array<{ currencyId: number; name: string; amount: number }>;
  /** Stored value; `currency` is an ISO 4217 code when the node knows one. */
  quickPay: { amount: number; currency: string | null };
}

export type KioskView =
  | { name: 'idle' }
  | { name: 'type' }
  | { name: 'register' }
  | { name: 'working' }
  | { name: 'welcome'; welcome: KioskWelcome }
  | { name: 'retry'; reason: RetryReason }
  /** A card of the program nobody has linked: the customer may join with it. */
  | { name: 'unlinked'; card: string }
  | { name: 'error'; message: string };

/** What the customer has typed so far (kept while the kiosk is busy, so a fix needs no retyping). */
export interface KioskDraft {
  identification: string;
  phone: string;
  /** ISO code of the country picked for the phone; empty = the store's country (the node's default). */
  callingCountry: string;
  /** Its calling code without "+"; empty = the store's country. */
  callingCode: string;
  firstName: string;
  /** An unlinked card the customer joins with; '' for a plain join by phone. */
  card: string;
}

export interface KioskState {
  view: KioskView;
  draft: KioskDraft;
  /** A message for the form on screen (the node refused the phone number…), or null. */
  formError: string | null;
  /** Date.now() at which the current view returns to idle; null when it stays. */
  deadline: number | null;
  startTyping(): void;
  /** The join form; with `card`, the new customer is joined with that unlinked card. */
  startRegister(card?: string): void;
  backToIdle(): void;
  edit(patch: Partial<KioskDraft>): void;
  /** Someone is using the form: restarts its idle timer. */
  touch(): void;
  /** Checks in by a typed identification (card number, phone, email…). */
  checkIn(): Promise<void>;
  /** In-store register by phone, then the welcome. */
  register(): Promise<void>;
  /** A keyboard-wedge line captured on this screen (the wedge sink): posts it and shows the outcome. */
  scanLine(line: string): Promise<ScanReply>;
  /** A session opened at this store (event stream: a scan read by the node's HID scanner). */
  sessionOpened(sessionId: number): Promise<void>;
  /** The node's scanner read a code it could not check in (event stream `scan.rejected`). */
  scanRejected(reason: string): void;
  dispose(): void;
}

export type KioskApi = Pick<TerminalApi, 'checkIn' | 'scan' | 'register' | 'retrieve' | 'queue'>;

export interface KioskOptions {
  /** ISO 4217 code of the store's quick-pay balance (GET /app/terminal), used when a reply has none. */
  quickPayCurrency?: string | null;
  welcomeMs?: number;
  retryMs?: number;
  inputIdleMs?: number;
  now?: () => number;
}

const EMPTY_DRAFT: KioskDraft = { identification: '', phone: '', callingCountry: '', callingCode: '', firstName: '', card: '' };

/** The card number an unlinked-card refusal was about, when the customer's input was one. */
function unlinkedCard(error: unknown, input: string): string | null {
  const card = input.trim();
  return error instanceof NodeApiError && error.code === 'card_not_linked' && /^[A-Za-z0-9]{1,64}$/.test(card) ? card.toUpperCase() : null;
}

/** The welcome from a retrieve-customer reply. */
export function welcomeFrom(sessionId: number, customer: CustomerAtCounter, quickPayCurrency: string | null = null): KioskWelcome {
  const first = customer.user.first_name.trim();
  const guest = first === '' || (first === 'Guest' && customer.user.last_name.trim() === '');
  return {
    sessionId,
    firstName: guest ? null : first,
    tier: customer.user.tier?.name ?? null,
    points: customer.loyalty_balance.data.map((b) => ({ currencyId: b.currency.id, name: b.currency.name, amount: b.amount })),
    quickPay: { amount: customer.quick_pay_balance.amount, currency: customer.quick_pay_balance.currency?.code ?? quickPayCurrency },
  };
}

function isNotFound(error: unknown): boolean {
  return error instanceof NodeApiError && (error.code === 'customer_not_found' || (error.status === 404 && error.code !== 'route_not_found'));
}

/** Text for an error the customer sees: the node's own message, or ours when it did not answer. */
function messageOf(error: unknown): string {
  if (error instanceof NodeApiError && error.unreachable) return useKioskStrings.now().unreachable;
  return errorMessage(error);
}

/**
 * The kiosk's flow as a store (no DOM, so it is tested with fake APIs and timers): idle → type or
 * register → working → welcome (then idle after `welcomeMs`), or retry / error (then idle).
 */
export function createKioskStore(api: KioskApi, options: KioskOptions = {}) {
  const welcomeMs = options.welcomeMs ?? KIOSK_WELCOME_MS;
  const retryMs = options.retryMs ?? KIOSK_RETRY_MS;
  const inputIdleMs = options.inputIdleMs ?? KIOSK_INPUT_IDLE_MS;
  const now = options.now ?? Date.now;
  const quickPayCurrency = options.quickPayCurrency ?? null;

  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every new flow: a reply for an older one is dropped. */
  let run = 0;
  /**
   * Sessions this kiosk showed or opened lately, so the stream's echo of them is ignored; after a
   * welcome's length the same customer scanning again is greeted again.
   */
  const handled = new Map<number, number>();
  const remember = (id: number) => handled.set(id, now());
  const recentlyHandled = (id: number) => {
    for (const [key, at] of handled) if (now() - at >= welcomeMs) handled.delete(key);
    return handled.has(id);
  };

  return createStore<KioskState>()((set, get) => {
    function show(view: KioskView, ms: number | null) {
      clearTimeout(timer);
      timer = undefined;
      if (ms !== null) timer = setTimeout(() => get().backToIdle(), ms);
      set({ view, deadline: ms === null ? null : now() + ms });
    }

    function begin(): number {
      run += 1;
      show({ name: 'working' }, null);
      set({ formError: null });
      return run;
    }

    async function welcome(current: number, sessionId: number, hash: string) {
      remember(sessionId);
      const customer = await api.retrieve(hash);
      if (current !== run) return;
      set({ draft: EMPTY_DRAFT });
      show({ name: 'welcome', welcome: welcomeFrom(sessionId, customer, quickPayCurrency) }, welcomeMs);
    }

    function fail(current: number, error: unknown, form: 'type' | 'register' | null, input = '') {
      if (current !== run) return;
      const card = unlinkedCard(error, input);
      if (card) return show({ name: 'unlinked', card }, retryMs);
      if (isNotFound(error)) return show({ name: 'retry', reason: 'not-found' }, retryMs);
      if (error instanceof NodeApiError && retryReasonOf(error.code) !== 'not-found') return show({ name: 'retry', reason: retryReasonOf(error.code) }, retryMs);
      // A refused phone or identification: back to the form with the node's message, nothing retyped.
      if (form && error instanceof NodeApiError && (error.status === 400 || error.status === 422)) {
        show({ name: form }, inputIdleMs);
        set({ formError: error.message });
        return;
      }
      show({ name: 'error', message: messageOf(error) }, retryMs);
    }

    return {
      view: { name: 'idle' },
      draft: EMPTY_DRAFT,
      formError: null,
      deadline: null,
      startTyping() {
        run += 1;
        set({ formError: null });
        show({ name: 'type' }, inputIdleMs);
      },
      startRegister(card) {
        run += 1;
        set({ formError: null, draft: { ...get().draft, card: card ?? '' } });
        show({ name: 'register' }, inputIdleMs);
      },
      backToIdle() {
        run += 1;
        set({ draft: EMPTY_DRAFT, formError: null });
        show({ name: 'idle' }, null);
      },
      edit(patch) {
        set({ draft: { ...get().draft, ...patch }, formError: null });
        get().touch();
      },
      touch() {
        const { view } = get();
        if (view.name === 'type' || view.name === 'register') show(view, inputIdleMs);
      },
      async checkIn() {
        const identification = get().draft.identification.trim();
        if (!identification) return;
        const current = begin();
        try {
          const reply = await api.checkIn(identification);
          if (current !== run) return;
          await welcome(current, reply.pos_session.id, reply.pos_session.hash);
        } catch (error) {
          fail(current, error, 'type', identification);
        }
      },
      async register() {
        const { phone, callingCode, firstName, card } = get().draft;
        const number = phone.replace(/[^\d]/g, '');
        if (!number) return;
        const current = begin();
        try {
          const reply = await api.register({
            phone_number: { number, ...(callingCode ? { code: callingCode } : {}) },
            ...(firstName.trim() ? { first_name: firstName.trim() } : {}),
            ...(card ? { card_number: card } : {}),
          });
          if (current !== run) return;
          await welcome(current, reply.pos_session.id, reply.pos_session.hash);
        } catch (error) {
          fail(current, error, 'register');
        }
      },
      async scanLine(line) {
        const current = begin();
        try {
          const reply = await api.scan(line);
          if (current === run) await welcome(current, reply.pos_session.id, reply.pos_session.hash);
          return reply;
        } catch (error) {
          fail(current, error, null, line);
          throw error;
        }
      },
      async sessionOpened(sessionId) {
        const { view } = get();
        // Someone is typing or the kiosk is busy: a session opened elsewhere does not interrupt.
        if (view.name !== 'idle' && view.name !== 'welcome') return;
        if (recentlyHandled(sessionId)) return;
        remember(sessionId);
        const current = begin();
        try {
          const queue = await api.queue();
          if (current !== run) return;
          const entry = queue.find((e) => e.pos_session.id === sessionId);
          if (!entry) return get().backToIdle();
          await welcome(current, sessionId, entry.pos_session.hash);
        } catch {
          // Not this customer's doing on this screen: no error page, just ready again.
          if (current === run) get().backToIdle();
        }
      },
      scanRejected(reason) {
        // Only an idle kiosk answers: someone typing or being welcomed is not interrupted.
        if (get().view.name !== 'idle') return;
        run += 1;
        show({ name: 'retry', reason: retryReasonOf(reason) }, retryMs);
      },
      dispose() {
        run += 1;
        clearTimeout(timer);
        timer = undefined;
      },
    };
  });
}

export type KioskStore = ReturnType<typeof createKioskStore>;
