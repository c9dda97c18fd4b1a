import type { Static } from 'typebox';
import type { CheckInReplySchema, QueueEntrySchema, RegisterReplySchema, RetrieveReplySchema, ScanReplySchema } from '../../../shared/schemas/onscreen';
import type { TerminalSchema } from '../../../shared/schemas/terminal';
import type { Requester } from './client';

export type Terminal = Static<typeof TerminalSchema>;
export type CheckInReply = Static<typeof CheckInReplySchema>;
export type RegisterReply = Static<typeof RegisterReplySchema>;
export type QueueEntry = Static<typeof QueueEntrySchema>;
export type CustomerAtCounter = Static<typeof RetrieveReplySchema>;
export type ScanReply = Static<typeof ScanReplySchema>;

export interface InStoreRegistration {
  phone_number?: { number: string; code?: string };
  email?: string;
  first_name?: string;
  last_name?: string;
  /** An unlinked card of the program, linked to the customer in the same step. */
  card_number?: string;
}

/** A screen's id for its check-ins: random, for this page's life (crypto.randomUUID needs HTTPS; a LAN node is plain HTTP). */
export function newScreenId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The in-store calls a screen makes with its store key (the `api_key` query parameter): the same
 * endpoints every POS integration uses. Replies are typed by the node's own schemas. Its check-ins
 * (typed, wedge lines, sign-ups) name the screen (`screen`), so the event stream tells the screen
 * that made one from the store's other screens.
 */
export function createTerminalApi(request: Requester, apiKey: string, screen = newScreenId()) {
  const key = { api_key: apiKey };
  const checkInQuery = { api_key: apiKey, screen };
  return {
    /** The store key and requester these calls use, for feature APIs over the same key (orders, history). */
    apiKey,
    request,
    /** This screen's id, sent with its check-ins and carried by their events. */
    screen,
    /** GET /app/terminal: the key's role, vendor and store. */
    terminal: (signal?: AbortSignal) => request('/app/terminal', { query: key, signal }) as Promise<Terminal>,
    /** POST /onscreen: check a customer in by any identification (card, email, phone, app token…). */
    checkIn: (identification: string) => request('/onscreen', { method: 'POST', query: checkInQuery, body: { card_number: identification } }) as Promise<CheckInReply>,
    /** GET /onscreen/queue: customers checked in and not yet closed. */
    queue: (signal?: AbortSignal) => request('/onscreen/queue', { query: key, signal }) as Promise<QueueEntry[]>,
    /** GET /onscreen: the customer panel of one session. */
    retrieve: (hash: string, signal?: AbortSignal) => request('/onscreen', { query: { ...key, pos_session_hash: hash }, signal }) as Promise<CustomerAtCounter>,
    /** DELETE /onscreen: close the session (it leaves the queue). */
    close: (hash: string) => request('/onscreen', { method: 'DELETE', query: key, body: { pos_session_hash: hash } }) as Promise<object>,
    /** POST /onscreen/register: sign a customer up at the counter by phone or email, checked in at once. */
    register: (registration: InStoreRegistration) => request('/onscreen/register', { method: 'POST', query: checkInQuery, body: registration }) as Promise<RegisterReply>,
    /** POST /app/scans: a keyboard-wedge line captured by the screen; the node decodes it and checks in. */
    scan: (line: string) => request('/app/scans', { method: 'POST', query: checkInQuery, body: { line } }) as Promise<ScanReply>,
    /** URL of the store's event stream (GET /app/events), for an EventSource. */
    eventsUrl: (baseUrl: string) => `${baseUrl}/app/events?api_key=${encodeURIComponent(apiKey)}`,
  };
}

export type TerminalApi = ReturnType<typeof createTerminalApi>;
