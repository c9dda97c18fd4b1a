import { type Command, InvalidArgumentError } from 'commander';
import { createLogger } from '../http/logger';
import { parseKeyboardDeviceRule } from '../../devices/hid';
import { type RunningNode, startStoreNode } from '../node/store-node';
import { scannerOptionsFrom } from './scanner-options';
import { runUntilSignal } from './run-until-signal';
import { moveCentralAddress } from '../sync/move-central-address';
import { pairStoreWithCentral, storeNamed } from '../sync/pair-store';
import { showFirstSyncProgress } from './sync-progress';
import { TRUST_PROXY_HELP, trustProxyOf, trustProxyOption } from './trust-proxy-option';
import type { TrustProxy } from '../http/trust-proxy';
import { asOption } from './as-option';
import { STORE_PORT } from './default-ports';
import { type MailOptions, smtpUrlOf, withMailOptions } from './mail-options';
import { LOG_LEVEL_HELP, checkServeSettings } from './serve-settings';
import { checkFolderNodeKey, checkHost, checkPort } from './folder-checks';
import { dataDirAt, refuseCentralsFolder } from '../node/data-dir';

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('the port is a whole number from 0 to 65535.');
  return port;
}

function parseScannerKinds(value: string): void {
  if (value !== 'hid') throw new Error('the only scanner kind is "hid".');
}

export function parseStoreId(value: string): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) throw new InvalidArgumentError('the store id is a positive whole number.');
  return id;
}

export function parseVendorId(value: string): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) throw new InvalidArgumentError('the vendor id is a whole number (see `punchcard init`).');
  return id;
}

function collectRule(value: string, previous: string[]): string[] {
  try {
    parseKeyboardDeviceRule(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return [...previous, value];
}

export function registerStoreCommand(program: Command): void {
  const store = program
    .command('store')
    .description('Run the headless store node: the interface at the root path, docs at /docs.')
    .requiredOption('--data <dir>', 'data folder of the node')
    .option('--port <port>', 'TCP port (0 picks a free one)', parsePort, STORE_PORT)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--database <url>', 'postgres://… instead of the SQLite file in the data folder');
  withMailOptions(store)
    .option('--log-level <level>', LOG_LEVEL_HELP, 'info')
    .option('--scanners <kinds>', 'read scanners attached to this machine: "hid" (HID POS scanners and card readers through node-hid)', asOption(parseScannerKinds))
    .option('--scanner-store <id>', 'store the scanners check customers in at (default: the node’s first store; the API key in PUNCHCARD_SCANNER_KEY wins)', parseStoreId)
    .option('--scanner-keyboard <vendor:product:kind>', 'also read this keyboard-emulation device over hidraw, e.g. 05e0:1200:barcode (repeatable)', collectRule, [])
    .option('--central <url>', "pair with this central node (with --pair; later starts remember it); without --pair, a paired store's new central address")
    .option('--pair <code>', 'the pairing code central issued for this store (punchcard pair-code)')
    .option('--label <name>', "this node's name at central (with --pair; default: the machine's host name)")
    .option('--replace-local-data', 'when pairing a store that has data of its own, set that data aside (renamed, kept) instead of refusing')
    .option('--webhooks-allow-private', 'accept http:// webhook URLs and loopback/private addresses (tests, on-premises receivers)', false)
    .option('--public-url <url>', 'where emailed back-office links and customers\' referral links point, e.g. https://loyalty.example.com (default: PUNCHCARD_PUBLIC_URL, else the address a request reached)')
    .option('--trust-proxy <addresses|hops>', TRUST_PROXY_HELP, trustProxyOption)
    .action(async (options: MailOptions & { data: string; port: number; host: string; database?: string; logLevel: string; scanners?: string; scannerStore?: number; scannerKeyboard: string[]; central?: string; pair?: string; label?: string; replaceLocalData?: boolean; webhooksAllowPrivate: boolean; publicUrl?: string; trustProxy?: TrustProxy }) => {
      const trustProxy = trustProxyOf(options.trustProxy, process.env);
      if (trustProxy === false) return;
      const { publicUrl } = checkServeSettings(options, process.env);
      const smtpUrl = smtpUrlOf(options, process.env);
      const scanners = scannerOptionsFrom(options, process.env);
      if (options.pair !== undefined && options.central === undefined) {
        console.error('punchcard: pairing needs both --central URL and --pair CODE.');
        process.exitCode = 1;
        return;
      }
      // A central's folder (even while central runs on it: it writes no node.pid) is not a store's.
      refuseCentralsFolder(dataDirAt(options.data), '`punchcard store`', 'Run `punchcard central` on it, or give the store a folder of its own.');
      await checkHost(options.host);
      await checkPort(options.host, options.port);
      await checkFolderNodeKey({ dataDir: options.data, database: options.database });
      if (options.pair !== undefined && options.central !== undefined) {
        const pairing = await pairStoreWithCentral({
          dataDir: options.data,
          central: options.central,
          code: options.pair,
          replaceLocalData: options.replaceLocalData ?? false,
          ...(options.label !== undefined ? { label: options.label } : {}),
        });
        console.error(`punchcard: paired with ${pairing.central} as node ${pairing.node_id} of ${storeNamed(pairing)}`);
      } else if (options.central !== undefined) {
        // Without --pair, a paired store's central moved: only its address changes (move-central-address.ts).
        const moved = await moveCentralAddress(options.data, options.central);
        if (moved) console.error(`punchcard: central's address changed from ${moved.from} to ${moved.to}`);
      }
      const logger = createLogger({ level: options.logLevel });
      const node = await startStoreNode({
        dataDir: options.data,
        port: options.port,
        host: options.host,
        database: options.database,
        smtpUrl,
        mailFrom: options.mailFrom,
        logger,
        scanners,
        refuseBadScannerChoice: true,
        webhooksAllowPrivate: options.webhooksAllowPrivate,
        publicUrl,
        trustProxy,
      });
      logger.info({ url: node.url, node_id: node.engine.nodeId }, `Punchcard store node listening on ${node.url}`);
      await warnIfNoProgram(node, options.data, logger);
      if (node.sync) void showFirstSyncProgress(node.sync);
      await runUntilSignal(node, (line) => logger.info(line));
    });
}

/**
 * A folder never set up (no `init`, no pairing) serves an empty node: started, as a new till that
 * will be paired from its Settings screen must be, but said once so an operator who forgot `init`
 * is not left with a node that answers nothing.
 */
async function warnIfNoProgram(node: RunningNode, dataDir: string, logger: { warn(object: object, message: string): void }): Promise<void> {
  if (node.sync !== null) return;
  const vendor = await node.engine.db.selectFrom('vendors').select('id').limit(1).executeTakeFirst();
  if (vendor) return;
  logger.warn(
    { data: dataDirAt(dataDir).root },
    `this folder holds no program yet: set one up with \`punchcard init --data ${dataDir} --vendor NAME\`, or pair it with a central node (\`--central URL --pair CODE\`, or from the screens' Settings)`,
  );
}
