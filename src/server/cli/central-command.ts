import type { Command } from 'commander';
import { createLogger } from '../http/logger';
import { databaseKindOf, folderRecordFile, recordFolder } from '../node/folder-record';
import { recordFolderDatabase } from '../node/folder-database';
import { startStoreNode } from '../node/store-node';
import { parsePort } from './store-command';
import { runUntilSignal } from './run-until-signal';
import { CENTRAL_PORT } from './default-ports';
import { type MailOptions, smtpUrlOf, withMailOptions } from './mail-options';
import { LOG_LEVEL_HELP, checkServeSettings } from './serve-settings';
import { checkFolderNodeKey, checkHost, checkPort, refuseKeyWithoutDatabase } from './folder-checks';
import { dataDirAt, refuseWhileNodeRuns } from '../node/data-dir';
import { SettingError } from '../node/setting-error';
import { readPairing } from '../sync/pairing-file';
import { TRUST_PROXY_HELP, trustProxyOf, trustProxyOption } from './trust-proxy-option';
import type { TrustProxy } from '../http/trust-proxy';

/** `punchcard central`: the chain's central node — the engine, the program's administration and the sync endpoints. */
export function registerCentralCommand(program: Command): void {
  const central = program
    .command('central')
    .description("Run a chain's central node: stores pair with it and sync through it; vendor administration lives here.")
    .requiredOption('--data <dir>', 'data folder of the node (keys, logs; the SQLite file unless --database)')
    .option('--port <port>', 'TCP port (0 picks a free one)', parsePort, CENTRAL_PORT)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--database <url>', 'postgres://… (recommended for a chain; default PUNCHCARD_DATABASE_URL, else the SQLite file)');
  withMailOptions(central)
    .option('--log-level <level>', LOG_LEVEL_HELP, 'info')
    .option('--webhooks-allow-private', 'accept http:// webhook URLs and loopback/private addresses (tests, on-premises receivers)', false)
    .option('--public-url <url>', 'where emailed back-office links and customers\' referral links point, e.g. https://loyalty.example.com (default: PUNCHCARD_PUBLIC_URL, else the address a request reached)')
    .option('--trust-proxy <addresses|hops>', TRUST_PROXY_HELP, trustProxyOption)
    .action(async (options: MailOptions & { data: string; port: number; host: string; database?: string; logLevel: string; webhooksAllowPrivate: boolean; publicUrl?: string; trustProxy?: TrustProxy }) => {
      const trustProxy = trustProxyOf(options.trustProxy, process.env);
      if (trustProxy === false) return;
      const { publicUrl } = checkServeSettings(options, process.env);
      const smtpUrl = smtpUrlOf(options, process.env);
      // A store's folder is not a central's: a paired store's (its central.json), or one a store node runs on.
      const dir = dataDirAt(options.data);
      const pairing = readPairing(dir);
      if (pairing !== null) throw new SettingError(`${dir.root} is the folder of a store node paired with ${pairing.central}: give central a folder of its own.`);
      refuseWhileNodeRuns(dir);
      refuseKeyWithoutDatabase(dir, options.database ?? (process.env.PUNCHCARD_DATABASE_URL || undefined));
      await checkHost(options.host);
      await checkPort(options.host, options.port);
      await checkFolderNodeKey({ dataDir: options.data, database: options.database });
      const logger = createLogger({ level: options.logLevel });
      const node = await startStoreNode({
        dataDir: options.data,
        role: 'central',
        port: options.port,
        host: options.host,
        database: options.database,
        smtpUrl,
        mailFrom: options.mailFrom,
        logger,
        webhooksAllowPrivate: options.webhooksAllowPrivate,
        publicUrl,
        trustProxy,
      });
      // The folder says it is a central's, and where its database is: the other commands read it
      // (the sign-in link's port; a PostgreSQL central's folder run without PUNCHCARD_DATABASE_URL).
      recordFolder(dir, { role: 'central', database: databaseKindOf(options.database ?? (process.env.PUNCHCARD_DATABASE_URL || undefined)) });
      // On PostgreSQL, which database it is (a folder from before identities gets it now, and is told).
      if (node.engine.dialect === 'postgres') {
        const { id, recordedNow } = await recordFolderDatabase(node.engine.db, dir);
        if (recordedNow) logger.info({ database_id: id }, `${folderRecordFile(dir.root)} now records this folder's database (${id}): commands on this folder refuse any other`);
      }
      logger.info({ url: node.url, node_id: node.engine.nodeId }, `Punchcard central node listening on ${node.url}`);
      await runUntilSignal(node, (line) => logger.info(line));
    });
}
