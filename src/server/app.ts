import { DeferredSchemas, deferredCompilersFactory } from './http/lazy-schema-compilers';
import { parseQueryString } from './http/query-string';
import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Engine } from '../core/engine';
import { registerBodyParsing } from './body/body-parsing';
import { type CatalogRoute, recordRoutes } from './auth/credential';
import { answerClientError } from './errors/client-error';
import { handleFrameworkError, registerErrorHandling } from './errors/error-handler';
import { watchDatabaseFailures } from './errors/unavailable';
import { registerInputChecks } from './http/input-checks';
import { registerRequestPreconditions } from './http/request-preconditions';
import { requestIds } from './http/request-ids';
import { OneLinePerRequest } from './http/access-log';
import { limitConnectionsPerClient } from './http/client-address';
import { registerOpenApi } from './http/openapi';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './http/rate-limits';
import { registerRenderer } from './http/renderer';
import { registerAbsentFields } from './http/absent-fields';
import { registerStrictNumbers } from './http/strict-numbers';
import { registerSecurityHeaders } from './http/security-headers';
import { fastifyTrustProxy, type TrustProxy } from './http/trust-proxy';
import { accountRoutes } from './routes/account';
import { billingProfileRoutes } from './routes/billing-profiles';
import { reloadRoutes } from './routes/reloads';
import { reloadSettingsRoutes } from './routes/reload-settings';
import { backOfficeAuthRoutes } from './routes/backoffice-auth';
import { backOfficeChainRoutes } from './routes/backoffice-chain';
import { backOfficeDashboardRoutes } from './routes/backoffice-dashboard';
import { backOfficePaymentExceptionRoutes } from './routes/backoffice-payment-exceptions';
import { backOfficeProgramRoutes } from './routes/backoffice-program';
import { backOfficeCustomerRoutes } from './routes/backoffice-customers';
import { backOfficeImportRoutes } from './routes/backoffice-import';
import { backOfficeMemberExportRoutes } from './routes/backoffice-member-export';
import { backOfficePayBackRoutes } from './routes/backoffice-pay-back';
import { personalDataRoutes } from './routes/personal-data';
import { backOfficeStaffRoutes } from './routes/backoffice-staff';
import { backOfficeStoreRoutes } from './routes/backoffice-stores';
import { backOfficeWebhookRoutes } from './routes/backoffice-webhooks';
import { balanceRoutes } from './routes/balances';
import { cardRoutes } from './routes/cards';
import { contentRoutes } from './routes/content';
import { countryRoutes } from './routes/countries';
import { currencyRoutes } from './routes/currencies';
import { customerDeletionRoutes } from './routes/customer-deletion';
import { egiftRoutes } from './routes/egifts';
import { healthRoutes } from './routes/health';
import { historyRoutes } from './routes/history';
import { inboxRoutes } from './routes/inbox';
import { promotionRoutes } from './routes/promotions';
import { eventRoutes } from './routes/events';
import { oauthRoutes } from './routes/oauth';
import { onscreenRoutes } from './routes/onscreen';
import { orderRoutes } from './routes/orders';
import { scanRoutes } from './routes/scans';
import { scannerRoutes } from './routes/scanners';
import type { ScannerDirectory } from './node/scanners';
import { terminalRoutes } from './routes/terminal';
import { rewardRoutes } from './routes/rewards';
import { ruleRoutes } from './routes/rules';
import { paymentExceptionRoutes } from './routes/payment-exceptions';
import { joinRoutes } from './routes/join';
import { storeRoutes } from './routes/stores';
import { storeAdminRoutes } from './routes/stores-admin';
import { userCardRoutes } from './routes/user-cards';
import { userRoutes } from './routes/users';
import { centralSyncRoutes } from './routes/sync';
import { syncStatusRoutes } from './routes/sync-status';
import { storePairingRoutes } from './routes/store-pairing';
import type { PairingControl } from './sync/pairing-control';
import { forwardCentralOwnedCalls, markCentralOwnedRoutes } from './sync/forward-to-central';
import type { StoreSync } from './sync/store-sync';
import { webhookRoutes } from './routes/webhooks';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with the credential it takes (test/hardening walks it). */
    routeCatalog: () => CatalogRoute[];
    /** The configured public origin of emailed links, or null (staff.ts, backOfficeLinkBase). */
    publicUrl: string | null;
  }
}

export interface AppOptions {
  engine: Engine;
  role: 'store' | 'central';
  version: string;
  /** Rate limits of the sensitive customer calls (login, resets, lookups); defaults in rate-limits.ts. */
  rateLimits?: Partial<RateLimitSettings>;
  /** Folder of the built renderer to serve at `/` (skipped when it holds no index.html). */
  rendererDir?: string | undefined;
  /** A logger from createLogger (secrets redacted); none: silent. */
  logger?: FastifyBaseLogger;
  /** The node's scanners, listed by GET /app/scanners (an empty list without them). */
  scanners?: ScannerDirectory | null;
  /** A paired store's sync runtime: central-owned calls are forwarded, /sync/status reports it. */
  sync?: StoreSync | null;
  /** --webhooks-allow-private: endpoints may be http:// or on loopback/private addresses. */
  webhooksAllowPrivate?: boolean;
  /** The data folder whose disk GET /health checks (an SQLite node's database folder when absent). */
  dataDir?: string | null;
  /** GET /health's low-disk threshold (tests); 1 GiB by default (core/chain-health/node-health.ts). */
  diskLowBytes?: number;
  /** Pairing and unpairing from the screens (a store node's host restarts it); refused without. */
  pairingControl?: PairingControl | null;
  /** --public-url: where emailed links (back-office invitations and resets) point. */
  publicUrl?: string | undefined;
  /** How long a client may take to send a whole request (default 60 s): slow senders held connections for ever. */
  requestTimeoutMs?: number;
  /** Open connections one client (clientKey) may hold (default 1,000; not behind a trusted proxy). */
  maxConnectionsPerClient?: number;
  /**
   * --trust-proxy: the reverse proxies whose X-Forwarded-For is believed, so `request.ip` (every
   * per-client rate limit) is the client's address. None (the default): the headers are ignored.
   */
  trustProxy?: TrustProxy | null | undefined;
}

/** The HTTP face of a node: the interface at the root path, docs at /docs and /openapi.json. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const deferredSchemas = new DeferredSchemas();
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger, logController: new OneLinePerRequest() } : { logger: false }),
    bodyLimit: 1024 * 1024,
    // request.ip, .protocol and .host from X-Forwarded-* only for the configured proxies (trust-proxy.ts).
    ...(options.trustProxy ? { trustProxy: fastifyTrustProxy(options.trustProxy) } : {}),
    // Event streams never go idle: close them too on shutdown instead of waiting for the clients.
    forceCloseConnections: true,
    // A request must arrive whole in this time (Fastify's default is none: a byte every 20 s held a
    // connection for ever). Event streams are unaffected: their request is complete at once.
    requestTimeout,
    // Node looks for such requests every 30 s by default: every 5 s (or sooner for a shorter limit).
    // Node reads the limit when the server is made, not when Fastify sets it after: given here too.
    // A missing Host is refused in our envelope (request-preconditions.ts), not by Node's empty 400.
    http: { requestTimeout, connectionsCheckingInterval: Math.min(5_000, requestTimeout), requireHostHeader: false },
    // Requests arriving during a stop are refused in our envelope (node/drain-requests.ts), not Fastify's.
    return503OnClosing: false,
    // An error's reference_id names its log line: unique across restarts and processes (req-13 was
    // every process's thirteenth request), cheap per request (a counter after a random prefix).
    genReqId: requestIds(),
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: answerClientError,
    // Legacy paths take an optional .json suffix (/user/profile.json); /openapi.json is a real name.
    // Runs on every request: plain string scans (a regex split here cost ~3 % of a hot call).
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      const mark = url.indexOf('?');
      let path = mark < 0 ? url : url.slice(0, mark);
      if (path.includes('//') || (path.length > 1 && path.endsWith('/'))) path = tidySlashes(path);
      if (path.endsWith('.json') && path !== '/openapi.json') path = path.slice(0, -'.json'.length);
      return path.length === (mark < 0 ? url.length : mark) ? url : path + (mark < 0 ? '' : url.slice(mark));
    },
    routerOptions: { querystringParser: parseQueryString },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: true, useDefaults: true, allErrors: false } },
    // Fastify's own compilers, each route's compiled at first use or by the warm-up once listening.
    schemaController: { compilersFactory: deferredCompilersFactory(deferredSchemas) },
  }) as unknown as FastifyInstance;
  app.addHook('onListen', () => void deferredSchemas.warmUp());
  if (!options.trustProxy) limitConnectionsPerClient(app.server, options.maxConnectionsPerClient ?? 1_000);

  // Credentials are checked before validation: an unknown caller learns nothing about the body.
  app.decorate('routeCatalog', recordRoutes(app));
  app.decorate('publicUrl', publicOrigin(options.publicUrl));
  app.decorateRequest('bearer', null);
  app.decorateRequest('customer', null);
  app.decorateRequest('store', null);
  app.decorateRequest('staff', null);
  // First of the hooks: a request Node would have refused itself goes no further (not even CORS).
  registerRequestPreconditions(app);
  // Token credentials, no cookies: any origin may call (web shops, the desktop renderer, tablets).
  // OPTIONS without Origin is a plain "what can I call" question: 204, not a text/plain 400.
  // Retry-After readable from other origins: a screen says how long a 429 asks to wait (node-messages-es.ts).
  await app.register(cors, { origin: '*', methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], exposedHeaders: ['Retry-After'], maxAge: 600, strictPreflight: false });
  if (options.sync) {
    markCentralOwnedRoutes(app);
    forwardCentralOwnedCalls(app, options.sync.pairing.central);
  }
  registerInputChecks(app);
  registerBodyParsing(app);
  registerAbsentFields(app);
  registerStrictNumbers(app);
  registerErrorHandling(app);
  registerSecurityHeaders(app);
  await registerOpenApi(app, options.version);

  const { engine } = options;
  watchDatabaseFailures(app, engine);
  await app.register(healthRoutes, { engine, role: options.role, version: options.version, sync: options.sync ?? null, dataDir: options.dataDir ?? null, ...(options.diskLowBytes === undefined ? {} : { diskLowBytes: options.diskLowBytes }) });
  await app.register(oauthRoutes, { engine });
  await app.register(currencyRoutes, { engine });
  await app.register(cardRoutes, { engine });
  await app.register(countryRoutes, { engine });
  const rateLimits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
  await app.register(userRoutes, { engine, rateLimits });
  await app.register(customerDeletionRoutes, { engine, rateLimits });
  await app.register(onscreenRoutes, { engine, rateLimits });
  await app.register(eventRoutes, { engine });
  await app.register(orderRoutes, { engine });
  await app.register(scanRoutes, { engine });
  await app.register(scannerRoutes, { engine, scanners: options.scanners ?? null });
  await app.register(terminalRoutes, { engine });
  await app.register(accountRoutes, { engine, rateLimits });
  await app.register(balanceRoutes, { engine });
  await app.register(userCardRoutes, { engine, rateLimits });
  await app.register(rewardRoutes, { engine });
  await app.register(historyRoutes, { engine, rateLimits });
  await app.register(storeRoutes, { engine });
  await app.register(contentRoutes, { engine });
  await app.register(ruleRoutes, { engine });
  await app.register(paymentExceptionRoutes, { engine });
  await app.register(joinRoutes, { engine, rateLimits });
  await app.register(billingProfileRoutes, { engine, rateLimits });
  await app.register(reloadRoutes, { engine });
  await app.register(reloadSettingsRoutes, { engine });
  await app.register(egiftRoutes, { engine, rateLimits });
  await app.register(inboxRoutes, { engine });
  await app.register(promotionRoutes, { engine });
  if (options.role === 'central') await app.register(centralSyncRoutes, { engine });
  else {
    await app.register(syncStatusRoutes, { engine, sync: options.sync ?? null });
    await app.register(storePairingRoutes, { engine, control: options.pairingControl ?? null });
  }
  await app.register(webhookRoutes, { engine, allowPrivate: options.webhooksAllowPrivate ?? false });
  await app.register(backOfficeAuthRoutes, { engine, rateLimits });
  await app.register(backOfficeStaffRoutes, { engine });
  await app.register(backOfficeStoreRoutes, { engine });
  await app.register(backOfficeCustomerRoutes, { engine });
  await app.register(backOfficeImportRoutes, { engine });
  await app.register(backOfficeMemberExportRoutes, { engine });
  await app.register(backOfficePayBackRoutes, { engine });
  await app.register(personalDataRoutes, { engine, rateLimits });
  await app.register(backOfficeProgramRoutes, { engine, role: options.role });
  await app.register(backOfficeDashboardRoutes, { engine });
  await app.register(backOfficeChainRoutes, { engine, role: options.role });
  await app.register(backOfficePaymentExceptionRoutes, { engine });
  await app.register(backOfficeWebhookRoutes, { engine, allowPrivate: options.webhooksAllowPrivate ?? false });
  await app.register(storeAdminRoutes, { engine });
  if (options.rendererDir && !(await registerRenderer(app, options.rendererDir))) {
    // Said at the start: the screens' addresses would only answer 404 (a checkout never built).
    app.log.warn({ dir: options.rendererDir }, 'no screens are built here: / and /admin answer 404 until `npm run build` builds them');
  }
  return app;
}

/**
 * Apps join a base URL and a path: `https://host/` + `/user/profile` and `…/user/profile/` are the
 * same call to them, not a 404. Rewritten before routing, so `request.url` (page links, the error
 * envelope's style, forwarding to central) never sees `//`: `new URL('//user/…', origin)` is
 * another host.
 */
function tidySlashes(path: string): string {
  const single = path.replace(/\/{2,}/g, '/');
  return single.length > 1 && single.endsWith('/') ? single.slice(0, -1) : single;
}

/** --public-url as an origin without a trailing slash; anything but an http(s) URL stops the start. */
function publicOrigin(url: string | undefined): string | null {
  if (url === undefined || url === '') return null;
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) throw new Error(`--public-url must be an http(s) URL, not ${JSON.stringify(url)}`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}
