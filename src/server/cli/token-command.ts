import { type Command, InvalidArgumentError } from 'commander';
import { issueAdminToken } from '../../core/credentials/access-tokens';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';

function parseVendorId(value: string): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) throw new InvalidArgumentError('the vendor id is a whole number (see `punchcard init`).');
  return id;
}

export function registerTokenCommand(program: Command): void {
  program
    .command('token')
    .description('Issue a long-lived admin bearer token for a vendor (valid until revoked).')
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .requiredOption('--vendor <id>', 'vendor id', parseVendorId)
    .option('--label <text>', 'what the token is for', 'cli')
    .option('--json', 'print {"access_token": …}')
    .action(async (options: { data: string; vendor: number; label: string; json?: boolean }) => {
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const { token } = await issueAdminToken(engine, { vendorId: options.vendor, label: options.label });
        process.stdout.write(options.json ? `${JSON.stringify({ access_token: token })}\n` : `${token}\n`);
      } finally {
        await engine.close();
      }
    });
}
