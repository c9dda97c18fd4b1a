import { join } from 'node:path';
import type { Logger } from 'pino';
import { issueTemporaryAdminToken } from '../core/credentials/issue-session-token';
import { listVendors } from '../core/tenancy/find-vendors';
import { createLogger } from '../server/http/logger';
import { openDataDir } from '../server/node/data-dir';
import { seedDemoData } from '../server/node/demo-data';
import { type RunningNode, startStoreNode } from '../server/node/store-node';

export interface DesktopNode {
  node: RunningNode;
  logger: Logger;
  /** Bearer token for the cashier window (temporary admin token for now). */
  cashierCredential: string;
}

const CASHIER_TOKEN_TTL_SECONDS = 12 * 3600;

/**
 * The store node inside the desktop app: data in <userData>/data, logs in its logs/node.log,
 * loopback only on a free port. First run creates a demo vendor so the terminal has something to show.
 */
export async function startDesktopNode(userDataDir: string): Promise<DesktopNode> {
  const dataDir = openDataDir(join(userDataDir, 'data'));
  const logger = createLogger({ file: dataDir.logFile });
  const node = await startStoreNode({ dataDir: dataDir.root, port: 0, host: '127.0.0.1', logger });
  try {
    const made = await seedDemoData(node.engine);
    if (made) logger.info({ vendorId: made.vendorId }, 'desktop first run: demo vendor created');
    const [vendor] = await listVendors(node.engine);
    if (!vendor) throw new Error('No vendor in the data folder.');
    const { token } = await issueTemporaryAdminToken(node.engine, { vendorId: vendor.id, label: 'desktop cashier', ttlSeconds: CASHIER_TOKEN_TTL_SECONDS });
    logger.info({ url: node.url, dataDir: dataDir.root }, 'desktop store node started');
    return { node, logger, cashierCredential: token };
  } catch (error) {
    await node.close();
    throw error;
  }
}
