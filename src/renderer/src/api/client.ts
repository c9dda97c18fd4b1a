import type { Health } from '../../../shared/schemas/health';
import { languageStore } from '../i18n/language-store';
import { retryAfterSeconds, spanishOf } from './node-messages-es';
import { useApiStrings } from './strings';

/** What to show for a failure: its message (the node's own for a NodeApiError). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A call to the node that failed: it did not answer, answered an error, or answered nonsense. */
export class NodeApiError extends Error {
  override readonly name = 'NodeApiError';
  /** HTTP status of the answer; null when there was none. */
  readonly status: number | null;
  /** Machine code from the error envelope, when there was one. */
  readonly code: string | null;
  /** The input the refusal concerns (`per_amount`, `hours.mon`), as the envelope names it; null when it names none. */
  readonly field: string | null;
  /** The node did not answer at all (down, wrong address, refused by CORS/CSP). */
  readonly unreachable: boolean;

  constructor(message: string, options: { status?: number | null; code?: string | null; field?: string | null; unreachable?: boolean } = {}) {
    super(message);
    this.status = options.status ?? null;
    this.code = options.code ?? null;
    this.field = options.field ?? null;
    this.unreachable = options.unreachable ?? false;
  }
}

export interface NodeConnection {
  /** Origin of the node, no trailing slash. */
  baseUrl: string;
  /** Bearer credential for calls that need one. */
  credential: string | null;
}

/** The node this page talks to: the one the preload names, else the origin that served the page. */
export function resolveConnection(win: Pick<Window, 'punchcard' | 'location'> = window): NodeConnection {
  const bridge = win.punchcard;
  if (bridge) return { baseUrl: bridge.nodeUrl.replace(/\/+$/, ''), credential: bridge.credential || null };
  return { baseUrl: win.location.origin, credential: null };
}

export interface RequestOptions {
  method?: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  /** JSON body. */
  body?: unknown;
  /** Send the credential as a bearer token (avoid on public calls: it makes the browser send a CORS preflight). */
  auth?: boolean;
  signal?: AbortSignal | undefined;
  /** Extra request headers (the back office marks its background refreshes). */
  headers?: Record<string, string>;
  /** Answer the body as a file (a download: bytes as sent, with the name its Content-Disposition gives), not JSON. */
  file?: boolean;
}

/** A file the node sent for download. */
export interface NodeFile {
  blob: Blob;
  /** From Content-Disposition's filename, when the page may read it. */
  name: string | null;
}

/**
 * The node's refusal, in Spanish on a Spanish screen where its message is the code's own, or a
 * 429's with the wait its Retry-After gives (node-messages-es.ts).
 */
function nodeError(status: number, code: unknown, message: string, field: unknown, retryAfter: number | null): NodeApiError {
  const known = typeof code === 'string' ? code : null;
  const shown = (languageStore.getState().language === 'es' && spanishOf(known, message, retryAfter)) || message;
  return new NodeApiError(shown, { status, code: known, field: typeof field === 'string' && field !== '' ? field : null });
}

/**
 * Reads a refusal out of either error envelope (resource: {code, message, field?}; legacy:
 * {error: {errors: [{reason, message, field?}]}}).
 */
function errorFrom(status: number, body: unknown, retryAfter: number | null = null): NodeApiError {
  if (body && typeof body === 'object') {
    const resource = body as { code?: unknown; message?: unknown; field?: unknown };
    if (typeof resource.message === 'string') return nodeError(status, resource.code, resource.message, resource.field, retryAfter);
    const legacy = (body as { error?: { errors?: Array<{ reason?: unknown; message?: unknown; field?: unknown }> } }).error?.errors?.[0];
    if (legacy && typeof legacy.message === 'string') return nodeError(status, legacy.reason, legacy.message, legacy.field, retryAfter);
  }
  return new NodeApiError(useApiStrings.now().httpStatus(status), { status });
}

export function isHealth(value: unknown): value is Health {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    // A node that sells but needs attention answers 200 `degraded`; `unavailable` comes as a 503.
    (v.status === 'ok' || v.status === 'degraded') &&
    typeof v.node_id === 'number' &&
    (v.role === 'store' || v.role === 'central') &&
    (v.database === 'sqlite' || v.database === 'postgres') &&
    typeof v.version === 'string' &&
    typeof v.uptime_seconds === 'number' &&
    typeof v.time === 'string'
  );
}

export type Requester = (path: string, options?: RequestOptions) => Promise<unknown>;

/** One call to the node: builds the URL, sends JSON, and turns every failure into a NodeApiError. */
export function createRequester(connection: NodeConnection, fetchImpl: typeof fetch = (...args) => fetch(...args)): Requester {
  return async function request(path, options = {}) {
    const headers: Record<string, string> = { ...options.headers, Accept: 'application/json' };
    if (options.auth && connection.credential) headers.Authorization = `Bearer ${connection.credential}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const url = new URL(`${connection.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: options.method ?? 'GET',
        headers,
        signal: options.signal ?? null,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new NodeApiError(useApiStrings.now().unreachable(errorMessage(error)), { unreachable: true });
    }
    // Read as bytes: text() would drop a CSV's byte-order mark, which tells spreadsheets it is UTF-8.
    if (options.file && response.ok) return { blob: await response.blob(), name: /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? null } satisfies NodeFile;
    const text = await response.text();
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        if (response.ok) throw new NodeApiError(useApiStrings.now().notJson, { status: response.status });
      }
    }
    // A 429's wait, read from Retry-After where the browser lets the page see it (same origin).
    if (!response.ok) throw errorFrom(response.status, body, response.status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : null);
    return body;
  };
}

/** A small typed client of the node's health endpoint. */
export function createNodeApi(connection: NodeConnection, fetchImpl: typeof fetch = (...args) => fetch(...args)) {
  const request = createRequester(connection, fetchImpl);
  return {
    baseUrl: connection.baseUrl,
    /** GET /health: public, no credential. */
    async health(signal?: AbortSignal): Promise<Health> {
      const body = await request('/health', { signal });
      if (!isHealth(body)) throw new NodeApiError(useApiStrings.now().unexpectedHealth);
      return body;
    },
  };
}

export type NodeApi = ReturnType<typeof createNodeApi>;
