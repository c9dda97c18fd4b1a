import type { Command } from 'commander';
import { createCard } from '../../core/cards/create-card';
import { issueTemporaryAdminToken } from '../../core/credentials/issue-session-token';
import type { Engine } from '../../core/engine';
import { listVendors } from '../../core/tenancy/find-vendors';
import { setUpVendor } from '../../core/tenancy/set-up-vendor';
import { createLogger } from '../http/logger';
import { startStoreNode } from '../node/store-node';
import { runUntilSignal } from './run-until-signal';
import { parsePort } from './store-command';

const DEMO_CARDS = [
  { number: 'DEMO0001', data: { holder: 'Ana Torres', tier: 'Gold' } },
  { number: 'DEMO0002', data: { holder: 'Ben Okafor' } },
  { number: 'DEMO0003', data: { holder: 'Chloé Martin' } },
];

/** First run: a demo vendor with sample cards. Returns the credentials to print (secrets exist only then). */
async function seedDemo(engine: Engine): Promise<Record<string, string | number> | null> {
  if ((await listVendors(engine)).length > 0) return null;
  const made = await setUpVendor(engine, {
    name: 'Demo Coffee',
    currency: 'USD',
    country: 'US',
    store: { name: 'Demo Coffee Downtown', address1: '100 Market Street', city: 'San Francisco', region: 'US-CA', postalCode: '94105' },
  });
  for (const card of DEMO_CARDS) await createCard(engine, { vendorId: made.vendorId }, card);
  return { vendor_id: made.vendorId, api_key: made.apiKey, kiosk_api_key: made.kioskApiKey, client_id: made.clientId, client_secret: made.clientSecret };
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('Run a store node on a demo data folder, creating the demo vendor and sample data on first run.')
    .option('--data <dir>', 'data folder', '.data/demo')
    .option('--port <port>', 'TCP port', parsePort, 4321)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .action(async (options: { data: string; port: number; host: string }) => {
      const logger = createLogger();
      const node = await startStoreNode({ dataDir: options.data, port: options.port, host: options.host, logger });
      const firstRun = await seedDemo(node.engine);
      const [vendor] = await listVendors(node.engine);
      const { token } = await issueTemporaryAdminToken(node.engine, { vendorId: vendor!.id, label: 'demo', ttlSeconds: 24 * 3600 });
      const lines = [
        `Punchcard demo store node: ${node.url}  (API docs: ${node.url}/docs)`,
        `  data folder   ${options.data}`,
        `  admin token   ${token}  (valid 24 h; a new one is printed at every start)`,
        ...(firstRun ? Object.entries(firstRun).map(([k, v]) => `  ${k.padEnd(13)} ${v}`) : []),
        firstRun ? '  These keys are shown only on this first run.' : '  Demo data reused from the first run.',
        `  try: curl -H "Authorization: Bearer ${token}" ${node.url}/cards`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      await runUntilSignal(node, (line) => logger.info(line));
    });
}
