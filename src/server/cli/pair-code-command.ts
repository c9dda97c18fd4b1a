import type { Command } from 'commander';
import { issuePairingCode } from '../../core/sync/central/pairing';
import { ServiceError } from '../../shared/errors';
import { openFolderEngine } from './folder-checks';
import { parseStoreId } from './store-command';
import { getMeta } from '../../core/storage/node-meta';
import { dataDirAt } from '../node/data-dir';
import { databaseKindOf, readFolderRecord } from '../node/folder-record';
import { SettingError } from '../node/setting-error';
import { readPairing } from '../sync/pairing-file';

/** `punchcard pair-code`: a one-time code a store types to pair with this central node (15 minutes). */
export function registerPairCodeCommand(program: Command): void {
  program
    .command('pair-code')
    .description('Issue a one-time pairing code for one of the stores of this central node (valid 15 minutes).')
    .requiredOption('--data <dir>', "central node's data folder")
    .requiredOption('--store <id>', 'the store the node will act for', parseStoreId)
    .option('--database <url>', 'postgres://… when central runs on PostgreSQL (default: PUNCHCARD_DATABASE_URL)')
    .option('--json', 'print {"code", "expires_at"}')
    .action(async (options: { data: string; store: number; database?: string; json?: boolean }) => {
      // Only central's codes pair a store: one issued on a store's folder could never be used.
      const dir = dataDirAt(options.data);
      const pairing = readPairing(dir);
      if (pairing !== null) throw new SettingError(`${dir.root} is a store node paired with ${pairing.central}: issue the code on central's folder (or in its back office).`);
      const record = readFolderRecord(dir.root);
      const url = options.database ?? (process.env.PUNCHCARD_DATABASE_URL || undefined);
      const engine = await openFolderEngine({ dataDir: options.data, database: options.database, installCapture: false, existing: true });
      try {
        // A central's folder: `punchcard central` ran on it, its database is PostgreSQL (a chain's
        // central, as the README sets one up), or it carries central's change capture.
        const central = record.role === 'central' || record.database === 'postgresql' || databaseKindOf(url) === 'postgresql' || (await getMeta(engine.db, 'sync_capture')) === 'central';
        if (!central) {
          throw new SettingError(`${dir.root} is not a central node's folder: a store pairs with the central that issues its code. Run \`punchcard central --data ${options.data}\` once to make it a chain's central, or issue the code on central's folder.`);
        }
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
