import { join } from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_KEYBOARD_DEVICES } from '../devices/hid';
import { createLogger } from '../server/http/logger';
import { type DataDir, openDataDir } from '../server/node/data-dir';
import { checkInDemoQueue, seedDemoData } from '../server/node/demo/demo-data';
import { setAsideInterruptedDemo } from '../server/node/demo/demo-folder';
import { type RunningNode, startStoreNode } from '../server/node/store-node';
import { readPairing } from '../server/sync/pairing-file';
import type { DesktopConfig } from './desktop-config';
import { type DesktopKeys, mintDesktopKeys } from './desktop-keys';

export interface DesktopNode {
  node: RunningNode;
  logger: Logger;
  /** The windows' credentials: a cashier-role and a kiosk-role API key of the terminal's store. */
  readonly keys: DesktopKeys;
  /**
   * Pairing or unpairing from Settings restarts the node on another database, where the windows'
   * keys do not exist: new ones are minted there (once the store's rows have arrived) and handed here.
   */
  onKeysReplaced(listener: (keys: DesktopKeys) => void): void;
}

export interface DesktopNodeOptions {
  /** The OS app-data folder; the node's data goes in its data/ folder, logs in data/logs/node.log. */
  userDataDir: string;
  config: DesktopConfig;
  /** better-sqlite3 built for Electron (see native-binding.ts); undefined: node_modules' copy. */
  sqliteNativeBinding?: string | undefined;
}

/**
 * The store node inside the desktop app (the same code as `punchcard store`): loopback only on a free
 * port, HID scanners on unless configured off. First run creates a demo vendor so the terminal has
 * something to show. Then the windows' keys are minted for the configured store.
 */
export async function startDesktopNode(options: DesktopNodeOptions): Promise<DesktopNode> {
  const dataDir = openDataDir(join(options.userDataDir, 'data'));
  const logger = createLogger({ file: dataDir.logFile });
  const { config } = options;
  // An app closed while its first run created the demo data: not reused half made (see demo-folder.ts).
  const restarted = await setAsideInterruptedDemo(dataDir.root, { nativeBinding: options.sqliteNativeBinding });
  if (restarted) logger.warn(restarted);
  const listeners: Array<(keys: DesktopKeys) => void> = [];
  let keys: DesktopKeys | null = null;
  const node = await startStoreNode({
    dataDir: dataDir.root,
    port: 0,
    host: '127.0.0.1',
    logger,
    // Bundled into out/main/index.js: the built renderer sits beside it in out/renderer.
    rendererDir: join(import.meta.dirname, '../renderer'),
    sqliteNativeBinding: options.sqliteNativeBinding,
    scanners: {
      hid: config.scanners.hid,
      ...(config.storeId !== null ? { storeId: config.storeId } : {}),
      // Listed keyboard-emulation devices come on top of the default card readers.
      ...(config.scanners.keyboardDevices.length ? { keyboardDevices: [...DEFAULT_KEYBOARD_DEVICES, ...config.scanners.keyboardDevices] } : {}),
    },
    onRestarted: async (restarted) => {
      keys = await keysOnceStoreArrives(restarted, terminalStoreId(dataDir, config));
      logger.info({ store_id: keys.storeId }, 'desktop keys replaced after a pairing change');
      for (const listener of listeners) listener(keys);
    },
  });
  try {
    const made = await seedDemoData(node.engine);
    if (made) {
      logger.info({ vendorId: made.vendorId }, 'desktop first run: demo vendor created');
      await checkInDemoQueue(node.engine);
    }
    const storeId = terminalStoreId(dataDir, config);
    const minted = await mintDesktopKeys(node.engine, storeId);
    if (!minted) throw new Error(storeId === null ? 'No store in the data folder.' : `Store ${storeId} is not in the data folder.`);
    keys = minted;
    logger.info({ url: node.url, dataDir: dataDir.root, store_id: minted.storeId }, 'desktop store node started');
    return {
      node,
      logger,
      get keys() {
        return keys ?? minted;
      },
      onKeysReplaced: (listener) => void listeners.push(listener),
    };
  } catch (error) {
    await node.close();
    throw error;
  }
}

/** A paired terminal serves the store it was paired for; otherwise the configured one (or the first). */
function terminalStoreId(dataDir: DataDir, config: DesktopConfig): number | null {
  return readPairing(dataDir)?.store_id ?? config.storeId;
}

/** A first sync brings the store's rows within seconds; keys are minted as soon as they are there. */
async function keysOnceStoreArrives(node: RunningNode, storeId: number | null, timeoutMs = 10 * 60_000): Promise<DesktopKeys> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const keys = await mintDesktopKeys(node.engine, storeId);
    if (keys) return keys;
    if (Date.now() > deadline) throw new Error(`store ${storeId ?? ''} never arrived: the windows keep their old keys`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
