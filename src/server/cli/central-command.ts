import type { Command } from 'commander';
import { createLogger } from '../http/logger';
import { startStoreNode } from '../node/store-node';
import { parsePort } from './store-command';
import { runUntilSignal } from './run-until-signal';
import { TRUST_PROXY_HELP, trustProxyOf, trustProxyOption } from './trust-proxy-option';
import type { TrustProxy } from '../http/trust-proxy';

/** `punchcard central`: the chain's central node — the engine, the program's administration and the sync endpoints. */
export function registerCentralCommand(program: Command): void {
  program
    .command('central')
    .description("Run a chain's central node: stores pair with it and sync through it; vendor administration lives here.")
    .requiredOption('--data <dir>', 'data folder of the node (keys, logs; the SQLite file unless --database)')
    .option('--port <port>', 'TCP port (0 picks a free one)', parsePort, 4320)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--database <url>', 'postgres://… (recommended for a chain; default PUNCHCARD_DATABASE_URL, else the SQLite file)')
    .option('--smtp <url>', 'send emails through this SMTP server (default: PUNCHCARD_SMTP_URL, else files in <data>/outbox)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug', 'info')
    .option('--webhooks-allow-private', 'accept http:// webhook URLs and loopback/private addresses (tests, on-premises receivers)', false)
    .option('--public-url <url>', 'where emailed back-office links point, e.g. https://loyalty.example.com (default: PUNCHCARD_PUBLIC_URL, else the address a request reached)')
    .option('--trust-proxy <addresses|hops>', TRUST_PROXY_HELP, trustProxyOption)
    .action(async (options: { data: string; port: number; host: string; database?: string; smtp?: string; logLevel: string; webhooksAllowPrivate: boolean; publicUrl?: string; trustProxy?: TrustProxy }) => {
      const trustProxy = trustProxyOf(options.trustProxy, process.env);
      if (trustProxy === false) return;
      const logger = createLogger({ level: options.logLevel });
      const node = await startStoreNode({
        dataDir: options.data,
        role: 'central',
        port: options.port,
        host: options.host,
        database: options.database,
        smtpUrl: options.smtp ?? (process.env.PUNCHCARD_SMTP_URL || undefined),
        logger,
        webhooksAllowPrivate: options.webhooksAllowPrivate,
        publicUrl: options.publicUrl ?? (process.env.PUNCHCARD_PUBLIC_URL || undefined),
        trustProxy,
      });
      logger.info({ url: node.url, node_id: node.engine.nodeId }, `Punchcard central node listening on ${node.url}`);
      await runUntilSignal(node, (line) => logger.info(line));
    });
}
