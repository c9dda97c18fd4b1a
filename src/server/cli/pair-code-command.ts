import type { Command } from 'commander';
import { issuePairingCode } from '../../core/sync/central/pairing';
import { ServiceError } from '../../shared/errors';
import { openNodeEngine } from '../node/store-node';
import { parseStoreId } from './store-command';

/** `punchcard pair-code`: a one-time code a store types to pair with this central node (15 minutes). */
export function registerPairCodeCommand(program: Command): void {
  program
    .command('pair-code')
    .description('Issue a one-time pairing code for one of the stores of this central node (valid 15 minutes).')
    .requiredOption('--data <dir>', "central node's data folder")
    .requiredOption('--store <id>', 'the store the node will act for', parseStoreId)
    .option('--database <url>', 'postgres://… when central runs on PostgreSQL (default PUNCHCARD_DATABASE_URL)')
    .option('--json', 'print {"code", "expires_at"}')
    .action(async (options: { data: string; store: number; database?: string; json?: boolean }) => {
      const engine = await openNodeEngine({ dataDir: options.data, database: options.database, installCapture: false, existing: true });
      try {
        const store = await engine.db.selectFrom('stores').select(['id', 'vendor_id']).where('id', '=', options.store).executeTakeFirst();
        if (!store) throw new ServiceError('store_not_found', `There is no store ${options.store}.`);
        const issued = await issuePairingCode(engine, Number(store.vendor_id), options.store);
        const expiresAt = new Date(issued.expiresAt).toISOString();
        process.stdout.write(options.json ? `${JSON.stringify({ code: issued.code, expires_at: expiresAt })}\n` : `${issued.code} (expires ${expiresAt})\n`);
      } finally {
        await engine.close();
      }
    });
}
