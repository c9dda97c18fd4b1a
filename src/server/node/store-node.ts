import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Clock, systemClock } from '../../core/clock';
import { type Engine, ownsProgramData, startEngine } from '../../core/engine';
import { installChangeCapture } from '../../core/sync/capture/install-capture';
import { REPLICATED_TABLES } from '../../core/sync/replicated-tables';
import { readPairing } from '../sync/pairing-file';
import { startStoreSync, type StoreSync } from '../sync/store-sync';
import { CentralAlignedClock } from '../sync/central-aligned-clock';
import { resumeFromLastSync } from '../sync/resume-central-time';
import { createPairingControl, type PairingControl } from '../sync/pairing-control';
import { openDatabaseUrl } from '../../core/storage/database';
import { loadFirstSyncState } from '../../core/sync/store/sync-client';
import { VERSION } from '../../shared/version';
import { buildApp } from '../app';
import { builtRendererDir } from '../http/renderer';
import type { TrustProxy } from '../http/trust-proxy';
import { type Messaging, startMessaging } from '../messaging/start-messaging';
import { startJobs } from './jobs';
import type { PaymentGatewayConfig } from '../../core/payments/gateway/select-gateway';
import { startAutoReloadWorker } from '../payments/auto-reload-worker';
import { checkNodeKeyAgainstData, claimDataDir, dataDirAt, nodeKeyFromEnv, nodeKeyInUse, openDataDir, saveNewNodeKey } from './data-dir';
import { databaseLocation, paymentGatewayFromEnv } from './node-settings';
import { createNodeScanners, type NodeScannerOptions } from './node-scanners';
import { scannerChoiceProblem } from './scanner-scope';
import { SettingError } from './setting-error';
import type { ScannerService } from './scanners';
import { startWebhookWorker } from '../../core/webhooks/worker';
import type { PollingWorker } from '../../core/workers/polling-worker';
import { drainRequestsOnClose } from './drain-requests';
import { refuseLostPairing } from './lost-pairing';

export interface NodeEngineOptions {
  dataDir: string;
  /** postgres://… for a chain's central node; the data folder's SQLite file otherwise. */
  database?: string | undefined;
  role?: 'store' | 'central';
  /** better-sqlite3 addon built for another ABI (the desktop app's Electron copy); see database.ts. */
  sqliteNativeBinding?: string | undefined;
  /** Install (refresh) the change-capture triggers of central or a paired store; off for one-shot CLI commands. */
  installCapture?: boolean;
  /** The payment gateway; from PUNCHCARD_PAYMENT_GATEWAY (default: the built-in test gateway) when absent. */
  paymentGateway?: PaymentGatewayConfig | undefined;
  /**
   * A command that needs a program already set up (owner, key, token, stores, pair-code): an empty
   * folder is refused, with no database file made in it.
   */
  existing?: boolean;
  /** Where a node tells of a PostgreSQL connection its server ended (warn). */
  logger?: FastifyBaseLogger | undefined;
  /**
   * The machine's clock (tests: a machine whose clock is off); the system's by default. A store node
   * wraps it: paired, it dates by central's time while this one is off (CentralAlignedClock).
   */
  clock?: Clock | undefined;
}

/** The tables whose writes central's and a paired store's change capture logs. */
const CAPTURED_TABLES: ReadonlySet<string> = new Set(REPLICATED_TABLES.map((table) => table.name));

export async function openNodeEngine(options: NodeEngineOptions): Promise<Engine> {
  // Settings first: a bad one stops the command before the folder or a database is made.
  nodeKeyFromEnv(process.env);
  const paymentGateway = options.paymentGateway ?? paymentGatewayFromEnv(process.env);
  const location = databaseLocation(dataDirAt(options.dataDir), options.database ?? (process.env.PUNCHCARD_DATABASE_URL || undefined), { existing: options.existing ?? false });
  const dir = openDataDir(options.dataDir);
  const role = options.role ?? 'store';
  const paired = role === 'store' && readPairing(dir) !== null;
  // The key in use, not made yet: a folder whose node.key was lost must not get a new one over
  // the data the old one sealed (checked below, once the database is open).
  const keyInUse = nodeKeyInUse(dir);
  const nodeKey = keyInUse.key ?? randomBytes(32);
  const engine = await startEngine({
    database: openDatabaseUrl(location, {
      nativeBinding: options.sqliteNativeBinding,
      backgroundCheckpoints: role === 'central',
      // What the server said, not the driver's stack and client object (a known event, not a fault here).
      onConnectionLost: (error) => options.logger?.warn({ code: (error as { code?: unknown }).code ?? null, detail: error.message }, 'the database ended a connection; the next query opens another'),
      capturedTables: CAPTURED_TABLES,
    }),
    nodeKey,
    ...(options.clock ? { clock: options.clock } : {}),
    role,
    paymentGateway,
    // A paired store sells local-first; central owns the program and runs its jobs.
    programRole: paired ? 'replica' : 'owner',
  });
  // The key must open what the database sealed (card PINs, webhook secrets): refused before serving.
  // A chain's data without its central.json too, before a new node.key is written beside it.
  try {
    if (role === 'store' && !paired) refuseLostPairing(dir, engine.nodeId);
    await checkNodeKeyAgainstData(engine.db, dir, keyInUse);
    if (keyInUse.key === null) {
      saveNewNodeKey(dir, nodeKey);
      await checkNodeKeyAgainstData(engine.db, dir, { key: nodeKey, fromEnv: false });
    }
  } catch (error) {
    await engine.close();
    throw error;
  }
  if (paired) await loadFirstSyncState(engine);
  // Central logs its changes for its stores; a paired store logs its own for central.
  if (options.installCapture === false) return engine;
  if (role === 'central') await installChangeCapture(engine.db, engine.dialect, 'central');
  else if (paired) await installChangeCapture(engine.db, engine.dialect, 'store');
  return engine;
}

export interface StoreNodeOptions extends NodeEngineOptions {
  port?: number;
  host?: string;
  /** Built renderer to serve at `/`; defaults to the repository's out/renderer when built. */
  rendererDir?: string;
  /** smtp://user:pass@host:port (or smtps://) for emails; without it they are written to `<data>/outbox/`. */
  smtpUrl?: string | undefined;
  /** From of every email; `Punchcard <no-reply@punchcard.local>` when absent. */
  mailFrom?: string | undefined;
  /** Scanners the node reads (HID devices, scripted sources); each scan checks a customer in. */
  scanners?: NodeScannerOptions | undefined;
  /** --webhooks-allow-private: webhook endpoints may be http:// or on loopback/private addresses. */
  webhooksAllowPrivate?: boolean | undefined;
  /** --public-url: where emailed back-office links and customers' referral links point (else the address a request reached). */
  publicUrl?: string | undefined;
  /** --trust-proxy: the reverse proxies whose X-Forwarded-For is believed (none: ignored). */
  trustProxy?: TrustProxy | null | undefined;
  /**
   * `punchcard store`: a scanners' store or key the program does not have stops the first start
   * (scannerChoiceProblem) instead of a warning; the desktop app logs it and goes on.
   */
  refuseBadScannerChoice?: boolean | undefined;
  /** After an in-process restart (pairing, unpairing) has started the new instance. */
  onRestarted?: ((node: RunningNode) => Promise<void>) | undefined;
}

export interface RunningNode {
  url: string;
  app: FastifyInstance;
  engine: Engine;
  /** The outbox worker (emails and SMS); stopped by close() before the engine closes. */
  messaging: Messaging;
  /** The node's scanners; null when it reads none. Stopped by close() first. */
  scanners: ScannerService | null;
  /** A paired store's sync runtime; null on central and on unpaired stores. */
  sync: StoreSync | null;
  /** The webhook delivery worker; null on a replica node (central delivers). */
  webhooks: PollingWorker | null;
  /**
   * Stops the node, runs `between` (files may change: pairing, unpairing), and starts it again on
   * the same address. The fields above then describe the new instance.
   */
  restart(between?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

type NodeInstance = Omit<RunningNode, 'restart'>;

/**
 * A headless store node: the engine over its data folder and the interface on HTTP. Pairing and
 * unpairing from the screens restart it in-process (same address), so the fields are live views
 * of the current instance.
 */
export async function startStoreNode(options: StoreNodeOptions): Promise<RunningNode> {
  let current: NodeInstance;
  let restarting: Promise<void> | null = null;
  let closed = false;
  const node: RunningNode = {
    get url() {
      return current.url;
    },
    get app() {
      return current.app;
    },
    get engine() {
      return current.engine;
    },
    get messaging() {
      return current.messaging;
    },
    get scanners() {
      return current.scanners;
    },
    get sync() {
      return current.sync;
    },
    get webhooks() {
      return current.webhooks;
    },
    restart(between) {
      restarting ??= (async () => {
        const port = Number(new URL(current.url).port);
        await current.close();
        try {
          await between?.();
        } finally {
          // The chain's stores replace the node's own: the scanners find theirs at the first scan.
          if (!closed) current = await startNodeInstance({ ...options, port, refuseBadScannerChoice: false }, control);
          restarting = null;
        }
        if (!closed) await options.onRestarted?.(node);
      })();
      return restarting;
    },
    async close() {
      closed = true;
      await restarting?.catch(() => undefined);
      try {
        await current.close();
      } finally {
        releaseFolder();
      }
    },
  };
  const control = createPairingControl(node, options);
  // A store's folder is one node's (central processes on one PostgreSQL share theirs: its key).
  const releaseFolder = (options.role ?? 'store') === 'store' ? claimDataDir(openDataDir(options.dataDir)) : () => undefined;
  try {
    current = await startNodeInstance(options, control);
  } catch (error) {
    releaseFolder();
    throw error;
  }
  return node;
}

async function startNodeInstance(options: StoreNodeOptions, pairingControl: PairingControl): Promise<NodeInstance> {
  const role = options.role ?? 'store';
  // A store dates by central's time once central's replies show its machine's clock off (a paired
  // store's sync tells it; an unpaired one's never does, so it keeps the machine's).
  const clock = role === 'store' ? new CentralAlignedClock(options.clock ?? systemClock) : undefined;
  const engine = await openNodeEngine(clock ? { ...options, clock } : options);
  const pairing = role === 'store' ? readPairing(openDataDir(options.dataDir)) : null;
  // The store a paired node serves is known from central.json before its first sync brings any store.
  const scannerProblem = options.refuseBadScannerChoice && options.scanners ? await scannerChoiceProblem(engine, options.scanners, pairing?.store_id) : null;
  if (scannerProblem !== null) {
    await engine.close();
    throw new SettingError(scannerProblem);
  }
  const scanners = createNodeScanners(engine, options.scanners, options.logger);
  if (pairing && clock) await resumeFromLastSync(engine, clock, options.logger);
  const sync = pairing && clock ? await startStoreSync(engine, pairing, options.logger, clock) : null;
  const app = await buildApp({
    engine,
    role,
    version: VERSION,
    rendererDir: options.rendererDir ?? builtRendererDir(),
    scanners,
    sync,
    // /health checks the free space of the folder the node writes (a PostgreSQL central's too).
    dataDir: options.dataDir,
    ...(role === 'store' ? { pairingControl } : {}),
    webhooksAllowPrivate: options.webhooksAllowPrivate ?? false,
    publicUrl: options.publicUrl,
    trustProxy: options.trustProxy,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // A stop lets the requests under way answer before connections are cut and the database closes.
  drainRequestsOnClose(app);
  let messaging: Messaging;
  try {
    messaging = startMessaging(engine, {
      dataDir: openDataDir(options.dataDir).root,
      smtpUrl: options.smtpUrl,
      mailFrom: options.mailFrom,
      logger: options.logger,
    });
  } catch (error) {
    await app.close();
    await engine.close();
    throw error;
  }
  try {
    await app.listen({ port: options.port ?? 4321, host: options.host ?? '127.0.0.1' });
  } catch (error) {
    await messaging.stop();
    await app.close();
    await engine.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // Every node runs its housekeeping (barcode purge, outbox pruning); startJobs keeps the program's
  // own jobs to where its data is owned: a standalone store or central, not a paired store.
  const stopJobs = startJobs(engine, options.logger);
  const autoReloads = ownsProgramData(engine) ? startAutoReloadWorker(engine, { logger: options.logger }) : { stop: () => Promise.resolve() };
  const webhooks = startWebhookWorker(engine, { allowPrivate: options.webhooksAllowPrivate ?? false, ...(options.logger ? { logger: options.logger } : {}) });
  // Devices are read once the node answers, so the first scan's check-in reaches open screens.
  await scanners?.start();
  let closing: Promise<void> | undefined;
  return {
    url,
    app,
    engine,
    messaging,
    scanners,
    sync,
    webhooks,
    close: () => {
      // Scanners (their check-ins finish), then requests (they may queue messages), then the worker,
      // then the database.
      closing ??= Promise.resolve(scanners?.stop())
        .then(() => sync?.stop())
        .then(() => app.close())
        .then(() => stopJobs())
        .then(() => autoReloads.stop())
        .then(() => webhooks?.stop())
        .then(() => messaging.stop())
        .then(() => engine.close());
      return closing;
    },
  };
}
