import { type CustomerRows, type PairResponse, type PullResponse, type PushRequest, type PushResponse, type SnapshotPageOnTheWire, type SnapshotRequest } from '../../core/sync/protocol';
import { SCHEMA_LEVEL, SCHEMA_LEVEL_HEADER } from '../../core/sync/schema-level';
import { ERROR_CODES, type ErrorCode, ServiceError } from '../../shared/errors';
import type { SyncTransport } from '../../core/sync/store/sync-client';
import type { CentralClock } from './central-clock';

const TIMEOUT_MS = 15_000;
/** A counter waits on this one: past it, the cashier hears the chain is still arriving (503). */
const CUSTOMER_TIMEOUT_MS = 3_000;

/** A central node's reply that is not a success: carries its machine code (e.g. node_revoked). */
export class CentralError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** How an error of a central out of reach begins (store-sync.ts tells it from central's refusals). */
export const UNREACHABLE = 'central did not answer';

async function call<T>(url: string, init: RequestInit, timeoutMs = TIMEOUT_MS, clock?: CentralClock): Promise<T> {
  const sentAt = clock?.localNow() ?? 0;
  const reply = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) }).catch((error: unknown) => {
    throw new Error(`${UNREACHABLE} at ${new URL(url).origin} (${unreachableReason(error)})`, { cause: error });
  });
  clock?.observe(sentAt, clock.localNow(), reply.headers.get('date'));
  const text = await reply.text();
  const body = parseReply(text);
  // A web server, proxy page or Punchcard store at the address: no sync route, or no JSON at all.
  // Said as such (the store's central.json names the wrong address), not as the page's own text
  // ("There is no GET /sync/pull endpoint.", "Unexpected token '<'") nor as central refusing the store.
  if (body === null || (reply.status === 404 && (body['code'] === 'route_not_found' || body['code'] === undefined))) {
    throw new CentralError(reply.status, 'not_a_central', notACentral(url, reply.status));
  }
  if (!reply.ok) {
    // Sync endpoints answer in the resource style: {code, message}.
    const code = String(body['code'] ?? `http_${reply.status}`);
    const message = String(body['message'] ?? `central answered ${reply.status}`);
    // 503: central cannot serve now (its database lost, a stop): the store waits as for a central
    // out of reach, and its log says so rather than that central refused its data (store-sync.ts).
    throw new CentralError(reply.status, code, reply.status === 503 ? `${UNREACHABLE} at ${new URL(url).origin} (503 ${code}: ${message})` : message);
  }
  return body as T;
}

/** The reply's JSON object; null when it is not one (an HTML page, text). An empty reply is an empty object. */
function parseReply(text: string): Record<string, unknown> | null {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What an address that answers, but not as a central node, is told as (`advice`: what to check, where the caller is). */
export function notACentral(url: string, status: number, advice = 'check the central address this store was paired with (central.json in its data folder)'): string {
  const { origin, pathname } = new URL(url);
  return `${origin} is not a Punchcard central node (it answered ${status} to ${pathname}): ${advice}`;
}

/** fetch's "fetch failed" says nothing: the cause's code (ECONNREFUSED, ENOTFOUND…) or a timeout does. */
function unreachableReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if ((error as Error).name === 'TimeoutError') return 'no reply in time';
  return typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? (error as Error).message);
}

/** The store → central link over HTTP, with the node credential as bearer; `clock` learns how far central's clock is. */
export function httpTransport(central: string, credential: string, clock?: CentralClock): SyncTransport {
  // The schema level tells central which version this store runs (docs/sync.md, "Mixed versions").
  const headers = { authorization: `Bearer ${credential}`, 'content-type': 'application/json', [SCHEMA_LEVEL_HEADER]: SCHEMA_LEVEL };
  return {
    push: (request: PushRequest) => call<PushResponse>(`${central}/sync/push`, { method: 'POST', headers, body: JSON.stringify(request) }, TIMEOUT_MS, clock),
    pull: (after: number, limit: number) => call<PullResponse>(`${central}/sync/pull?after=${after}&limit=${limit}`, { headers }, TIMEOUT_MS, clock),
    snapshot: (r: SnapshotRequest) =>
      call<SnapshotPageOnTheWire>(`${central}/sync/snapshot?table=${encodeURIComponent(r.table)}&after=${r.after}&limit=${r.limit}&format=columns${r.estimate ? '&estimate=true' : ''}`, { headers }),
    customer: async (identification: string) => {
      try {
        return await call<CustomerRows>(`${central}/sync/customer`, { method: 'POST', headers, body: JSON.stringify({ card_number: identification }) }, CUSTOMER_TIMEOUT_MS);
      } catch (error) {
        // Central's verdict on who this is (not found, card not linked, …) is the store's answer.
        if (error instanceof CentralError && error.status !== 401 && error.status < 500 && error.code in ERROR_CODES) throw new ServiceError(error.code as ErrorCode, error.message, 'card_number');
        throw error;
      }
    },
  };
}

export function requestPairing(central: string, code: string, label: string): Promise<PairResponse> {
  return call<PairResponse>(`${central}/sync/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, label }) });
}
