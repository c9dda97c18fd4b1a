import type { Command } from 'commander';
import { issueAdminToken } from '../../core/credentials/access-tokens';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';
import { parseVendorId } from './store-command';
import { vendorOfNode } from './stores-command';

export function registerTokenCommand(program: Command): void {
  program
    .command('token')
    .description('Issue a long-lived admin bearer token for a vendor (valid until revoked).')
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .option('--vendor <id>', 'vendor id (default: the only one)', parseVendorId)
    .option('--label <text>', 'what the token is for', 'cli')
    .option('--json', 'print {"access_token": …}')
    .action(async (options: { data: string; vendor?: number; label: string; json?: boolean }) => {
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const { token } = await issueAdminToken(engine, { vendorId: await vendorOfNode(engine, options.vendor), label: options.label });
        process.stdout.write(options.json ? `${JSON.stringify({ access_token: token })}\n` : `${token}\n`);
      } finally {
        await engine.close();
      }
    });
}
