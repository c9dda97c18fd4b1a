import { type Command, InvalidArgumentError } from 'commander';
import { addApiKey } from '../../core/credentials/api-keys';
import { findCounterStore } from '../../core/stores/find-counter-store';
import { API_KEY_ROLES, type ApiKeyRole } from '../../shared/roles';
import { ServiceError } from '../../shared/errors';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';
import { parseStoreId } from './store-command';

function parseRole(value: string): ApiKeyRole {
  if (!(API_KEY_ROLES as readonly string[]).includes(value)) throw new InvalidArgumentError(`the role is one of ${API_KEY_ROLES.join(', ')}.`);
  return value as ApiKeyRole;
}

/**
 * `punchcard key`: a new API key for a store — what a browser screen signs in with (cashier or kiosk)
 * or what a POS integration calls with. Shown once; stored hashed.
 */
export function registerKeyCommand(program: Command): void {
  program
    .command('key')
    .description('Issue an API key for a store: cashier and kiosk keys sign screens in; integration keys are for POS systems.')
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .option('--role <role>', `${API_KEY_ROLES.join(', ')}`, parseRole, 'cashier' as ApiKeyRole)
    .option('--store <id>', "store id (default: the node's first store)", parseStoreId)
    .option('--label <text>', 'what the key is for', 'cli')
    .option('--json', 'print {"api_key", "role", "store_id", "vendor_id"}')
    .action(async (options: { data: string; role: ApiKeyRole; store?: number; label: string; json?: boolean }) => {
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const store = await findCounterStore(engine, options.store);
        if (!store) throw new ServiceError('store_not_found', options.store === undefined ? 'This data folder has no store yet: run `punchcard init` first.' : `There is no store ${options.store}.`);
        // Kiosk keys act for no point of sale: they may only check customers in.
        const posId = options.role === 'kiosk' ? null : store.posId;
        const { key } = await addApiKey(engine.db, engine, { vendorId: store.vendorId, storeId: store.storeId, posId, role: options.role, label: options.label });
        const output = { api_key: key, role: options.role, store_id: store.storeId, vendor_id: store.vendorId };
        process.stdout.write(options.json ? `${JSON.stringify(output)}\n` : `${key}\n`);
      } finally {
        await engine.close();
      }
    });
}
