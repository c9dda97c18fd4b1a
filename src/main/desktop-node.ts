import { join } from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_KEYBOARD_DEVICES } from '../devices/hid';
import { createLogger } from '../server/http/logger';
import { openDataDir } from '../server/node/data-dir';
import { checkInDemoQueue, seedDemoData } from '../server/node/demo/demo-data';
import { type RunningNode, startStoreNode } from '../server/node/store-node';
import type { DesktopConfig } from './desktop-config';
import { type DesktopKeys, mintDesktopKeys } from './desktop-keys';

export interface DesktopNode {
  node: RunningNode;
  logger: Logger;
  /** The windows' credentials: a cashier-role and a kiosk-role API key of the terminal's store. */
  keys: DesktopKeys;
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
  });
  try {
    const made = await seedDemoData(node.engine);
    if (made) {
      logger.info({ vendorId: made.vendorId }, 'desktop first run: demo vendor created');
      await checkInDemoQueue(node.engine);
    }
    const keys = await mintDesktopKeys(node.engine, config.storeId);
    if (!keys) throw new Error(config.storeId === null ? 'No store in the data folder.' : `Store ${config.storeId} is not in the data folder.`);
    logger.info({ url: node.url, dataDir: dataDir.root, store_id: keys.storeId }, 'desktop store node started');
    return { node, logger, keys };
  } catch (error) {
    await node.close();
    throw error;
  }
}
