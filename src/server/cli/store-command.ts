import { type Command, InvalidArgumentError } from 'commander';
import { createLogger } from '../http/logger';
import { startStoreNode } from '../node/store-node';
import { runUntilSignal } from './run-until-signal';

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('the port is a whole number from 0 to 65535.');
  return port;
}

export function registerStoreCommand(program: Command): void {
  program
    .command('store')
    .description('Run the headless store node: the interface at the root path, docs at /docs.')
    .requiredOption('--data <dir>', 'data folder of the node')
    .option('--port <port>', 'TCP port (0 picks a free one)', parsePort, 4321)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--database <url>', 'postgres://… instead of the SQLite file in the data folder')
    .option('--log-level <level>', 'fatal, error, warn, info, debug', 'info')
    .action(async (options: { data: string; port: number; host: string; database?: string; logLevel: string }) => {
      const logger = createLogger({ level: options.logLevel });
      const node = await startStoreNode({ dataDir: options.data, port: options.port, host: options.host, database: options.database, logger });
      logger.info({ url: node.url, node_id: node.engine.nodeId }, `Punchcard store node listening on ${node.url}`);
      await runUntilSignal(node, (line) => logger.info(line));
    });
}
