import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ServiceError } from '../../shared/errors';

// On a paired store, calls whose data central owns (customer accounts, saved cards, reloads,
// eGifts, the program's administration) are forwarded to central with the caller's credentials,
// and central's reply is returned unchanged. Everything else runs locally (docs/sync.md).

/** Customer-account calls central owns; every bearer (administration) route is central's too. */
export const CENTRAL_OWNED_ROUTES: ReadonlySet<string> = new Set([
  'POST /oauth/access_token',
  'POST /user/register',
  // The referral page's sign-up registers an account too (its GET, the page, is served locally).
  'POST /join',
  'POST /user/authenticate',
  'GET /user/activate',
  'GET /user/activate/email',
  'GET /user/activate/sms',
  'POST /user/account/deactivate',
  'POST /user/logout',
  'PUT /user/password',
  'POST /user/password-reset/reset',
  'POST /user/password-reset/apply',
  'PUT /user/profile',
  'POST /user/token/request',
  'POST /user/card/add',
  'DELETE /user/card',
  'POST /user/billing-profile/add',
  'GET /user/billing-profile/list',
  'POST /user/billing-profile/default',
  'DELETE /user/billing-profile',
  'POST /user/billing-profile/reload',
  'GET /user/billing-profile/reload/status',
  'GET /user/reload/settings',
  // A copy of the person's data: central holds the whole program (every store's sales, saved cards,
  // payments, messages); a store's copy lacks what stays at central and what it has not pulled yet.
  'GET /user/personal-data',
  'PUT /user/reload/settings',
  'POST /user/egift/claim',
  'POST /vendor/:vendor_id/egift',
  'DELETE /vendor/:vendor_id/customers',
  'DELETE /vendor/:vendor_id/customers/:user_id/submit',
  'PUT /vendor/content/:slug',
]);

export function isCentralOwned(method: string, url: string, security: unknown): boolean {
  if (url.startsWith('/sync/')) return false;
  const bearer = Array.isArray(security) && security.some((s) => typeof s === 'object' && s !== null && 'bearer' in s);
  return bearer || CENTRAL_OWNED_ROUTES.has(`${method} ${url}`);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    centralOwned?: boolean;
  }
}

/** Marks central-owned routes as they are registered; call before any route is added. */
export function markCentralOwnedRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const owned = methods.some((m) => isCentralOwned(m === 'HEAD' ? 'GET' : m, route.url, route.schema?.security));
    if (owned) route.config = { ...(route.config as object), centralOwned: true };
  });
}

// `expect` was this hop's (the node answered its 100 Continue and read the body); fetch refuses it,
// which read as central unreachable.
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection']);

/** Forwards central-owned calls; central unreachable → 503 central_unreachable, nothing done locally. */
export function forwardCentralOwnedCalls(app: FastifyInstance, central: string): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.centralOwned) return;
    const body = await readBody(request);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
    }
    // The client as this node sees it (request.ip honours --trust-proxy), never what the client
    // wrote in these headers: central believes them only with --trust-proxy naming its stores.
    headers['x-forwarded-for'] = request.ip;
    headers['x-forwarded-proto'] = request.protocol;
    if (request.host) headers['x-forwarded-host'] = request.host;
    else delete headers['x-forwarded-host'];
    let answer: Response;
    try {
      answer = await fetch(`${central}${request.url}`, {
        method: request.method,
        headers,
        ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      throw new ServiceError('central_unreachable');
    }
    const payload = Buffer.from(await answer.arrayBuffer());
    reply.code(answer.status);
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) void reply.header(name, value);
    });
    return reply.send(payload);
  });
}

async function readBody(request: FastifyRequest): Promise<Buffer> {
  if (request.method === 'GET' || request.method === 'HEAD') return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) throw new ServiceError('body_too_large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
