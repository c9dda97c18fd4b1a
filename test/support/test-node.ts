import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { createLogger } from '../../src/server/http/logger';
import type { RateLimitSettings } from '../../src/server/http/rate-limits';
import { type Messaging, startMessaging } from '../../src/server/messaging/start-messaging';
import { createNodeScanners, type NodeScannerOptions } from '../../src/server/node/node-scanners';
import type { ScannerService } from '../../src/server/node/scanners';
import { ManualClock } from './clock';
import { makeTempDir } from './temp-dir';

export interface TestNode {
  url: string;
  engine: Engine;
  app: FastifyInstance;
  clock: ManualClock;
  dataDir: string;
  /** The outbox worker: SMTP to `options.messaging.smtpUrl` when given, else files in `<dataDir>/outbox`. */
  messaging: Messaging;
  /** The node's scanners (`options.scanners`), started once it listens; null without them. */
  scanners: ScannerService | null;
  /** The trace-level log file (`options.traceLog`) and a flush of what is still buffered; null without. */
  log: { file: string; flush(): Promise<void> } | null;
  /** Adds a vendor (store, currencies, keys, tokens) like `punchcard init`. */
  addVendor(name?: string): Promise<VendorCredentials>;
  close(): Promise<void>;
}

/** A real node: a temp SQLite file, the real app, listening on a free port of 127.0.0.1. */
export interface TestNodeOptions {
  rendererDir?: string;
  messaging?: { smtpUrl?: string };
  /** Lower limits for a rate-limit test, or higher ones so a busy test never meets them. */
  rateLimits?: Partial<RateLimitSettings>;
  /** Scanners the node reads, as `punchcard store` would (e.g. `{ sources: [new ScriptedScanSource()] }`): each scan checks a customer in. */
  scanners?: NodeScannerOptions;
  /** Log everything (trace level) into `<dataDir>/node.log`, as `punchcard store` writes its log. */
  traceLog?: boolean;
  /** Accept http:// and loopback webhook URLs, as `punchcard store --webhooks-allow-private` does. */
  webhooksAllowPrivate?: boolean;
  /** Where emailed back-office links point, as `punchcard store --public-url` sets it. */
  publicUrl?: string;
  /** GET /health's low-disk threshold: a huge one makes the node `degraded`. */
  diskLowBytes?: number;
}

export async function startTestNode(options: TestNodeOptions = {}): Promise<TestNode> {
  const dir = makeTempDir();
  const clock = new ManualClock();
  const logFile = `${dir.path}/node.log`;
  const logger = options.traceLog ? createLogger({ level: 'trace', file: logFile }) : undefined;
  const engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), clock, role: 'store' });
  const scanners = createNodeScanners(engine, options.scanners);
  const app = await buildApp({ engine, role: 'store', version: 'test', rendererDir: options.rendererDir, rateLimits: options.rateLimits, scanners, webhooksAllowPrivate: options.webhooksAllowPrivate ?? false, publicUrl: options.publicUrl, ...(options.diskLowBytes === undefined ? {} : { diskLowBytes: options.diskLowBytes }), ...(logger ? { logger } : {}) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  await scanners?.start();
  const messaging = startMessaging(engine, { dataDir: dir.path, smtpUrl: options.messaging?.smtpUrl, ...(logger ? { logger } : {}) });
  let vendorCount = 0;
  return {
    url,
    engine,
    app,
    clock,
    dataDir: dir.path,
    messaging,
    scanners,
    log: logger ? { file: logFile, flush: () => new Promise<void>((resolve, reject) => logger.flush((error) => (error ? reject(error) : resolve()))) } : null,
    addVendor: (name) =>
      setUpVendor(engine, {
        name: name ?? `Vendor ${++vendorCount}`,
        currency: 'USD',
        country: 'US',
        store: { name: 'Main Store', address1: '1 Main Street', city: 'Springfield' },
      }),
    close: async () => {
      await scanners?.stop();
      await app.close();
      await messaging.stop();
      await engine.close();
      dir.remove();
    },
  };
}

export interface HttpReply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** fetch over real HTTP; JSON in, JSON out. `body` as a string is sent as is (form or raw JSON text). */
export async function http<T = any>(
  url: string,
  options: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpReply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string') body = options.body;
    else {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
  }
  const response = await fetch(url, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  // A file the node answers as CSV (an export, a statement) is its text.
  const csv = (response.headers.get('content-type') ?? '').startsWith('text/csv');
  return { status: response.status, body: text === '' ? undefined : csv ? text : JSON.parse(text), headers: response.headers };
}
