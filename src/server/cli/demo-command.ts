import type { Command } from 'commander';
import { issueTemporaryAdminToken } from '../../core/credentials/issue-session-token';
import { replaceApiKey } from '../../core/credentials/replace-api-key';
import type { Engine } from '../../core/engine';
import { findCounterStore } from '../../core/stores/find-counter-store';
import { listVendors } from '../../core/tenancy/find-vendors';
import { createLogger } from '../http/logger';
import { checkInDemoQueue, demoIdentifications, seedDemoData } from '../node/demo/demo-data';
import { checkDemoFolder } from '../node/demo/demo-folder';
import { DEMO_OWNER_EMAIL, demoOwnerSignIn } from '../node/demo/demo-owner';
import { signInLink } from './admin-url';
import { startStoreNode } from '../node/store-node';
import { runUntilSignal } from './run-until-signal';
import { STORE_PORT } from './default-ports';
import { checkNodeSettings } from '../node/node-settings';
import { checkLogLevel, LOG_LEVEL_HELP } from './serve-settings';
import { checkFolderNodeKey, checkHost } from './folder-checks';
import { parsePort } from './store-command';

/** Fresh keys for the demo's browser screens; the previous start's pair stops working. */
async function demoScreenKeys(engine: Engine): Promise<{ cashier: string; kiosk: string }> {
  const store = await findCounterStore(engine);
  if (!store) throw new Error('The demo data has no store.');
  const { vendorId, storeId, posId } = store;
  const cashier = await replaceApiKey(engine, { vendorId, storeId, posId, role: 'cashier', label: 'Demo cashier screen' });
  const kiosk = await replaceApiKey(engine, { vendorId, storeId, posId: null, role: 'kiosk', label: 'Demo kiosk screen' });
  return { cashier: cashier.key, kiosk: kiosk.key };
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('Run a store node on a demo data folder, creating the demo program, stores, customers and history on first run.')
    .option('--data <dir>', 'data folder', '.data/demo')
    .option('--port <port>', 'TCP port', parsePort, STORE_PORT)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--log-level <level>', `${LOG_LEVEL_HELP} (warn: request logs are off, to keep the console readable)`, 'warn')
    .option('--renderer <dir>', 'built renderer to serve at / (default: out/renderer of this checkout)')
    .action(async (options: { data: string; port: number; host: string; logLevel: string; renderer?: string }) => {
      checkLogLevel(options.logLevel);
      checkNodeSettings(process.env);
      await checkHost(options.host);
      await checkFolderNodeKey({ dataDir: options.data });
      const restarted = await checkDemoFolder(options.data);
      if (restarted) process.stderr.write(`punchcard: ${restarted}\n`);
      const logger = createLogger({ level: options.logLevel });
      const node = await startStoreNode({ dataDir: options.data, port: options.port, host: options.host, logger, ...(options.renderer ? { rendererDir: options.renderer } : {}) });
      const made = await seedDemoData(node.engine);
      await checkInDemoQueue(node.engine);
      const firstRun = made && { vendor_id: made.vendorId, api_key: made.apiKey, kiosk_api_key: made.kioskApiKey, client_id: made.clientId, client_secret: made.clientSecret };
      const [vendor] = await listVendors(node.engine);
      const { token } = await issueTemporaryAdminToken(node.engine, { vendorId: vendor!.id, label: 'demo', ttlSeconds: 24 * 3600 });
      const screens = await demoScreenKeys(node.engine);
      const ownerLink = signInLink(`${node.url}/admin`, await demoOwnerSignIn(node.engine, vendor!.id));
      const lines = [
        `Punchcard demo store node: ${node.url}  (API docs: ${node.url}/docs)`,
        `  data folder   ${options.data}`,
        `  admin token   ${token}  (valid 24 h; a new one is printed at every start)`,
        `  back office   ${ownerLink}  (signs ${DEMO_OWNER_EMAIL} in once, within 24 h; a new link at every start)`,
        `  cashier key   ${screens.cashier}  (open ${node.url} in a browser and sign in with it)`,
        `  kiosk key     ${screens.kiosk}  (the same, for the self check-in kiosk; both replaced at every start)`,
        ...(firstRun ? Object.entries(firstRun).map(([k, v]) => `  ${k.padEnd(13)} ${v}`) : []),
        firstRun ? '  These keys are shown only on this first run.' : '  Demo data reused from the first run.',
        '  try at the counter or the kiosk:',
        ...demoIdentifications().map((line) => `    ${line}`),
        `  try: curl -H "Authorization: Bearer ${token}" ${node.url}/cards`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      await runUntilSignal(node, (line) => logger.info(line));
    });
}
