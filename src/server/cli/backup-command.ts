import type { Command } from 'commander';
import { backUpFolder } from '../node/backup-folder';

/** `punchcard backup`: a consistent copy of a node's data folder, taken while the node runs. */
export function registerBackupCommand(program: Command): void {
  program
    .command('backup')
    .description('Back up a node\'s data folder (a store, or a central on SQLite) into a new folder, while the node runs: a consistent copy of its database, checked, with node.key and central.json. Start a node on that folder to restore it.')
    .requiredOption('--data <dir>', "the node's data folder")
    .requiredOption('--to <dir>', 'a new (or empty) folder for the backup')
    .option('--json', 'print {"backup", "files", "bytes"}')
    .action((options: { data: string; to: string; json?: boolean }) => {
      const backup = backUpFolder(options.data, options.to);
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ backup: backup.folder, files: backup.files, bytes: backup.bytes })}\n`);
        return;
      }
      const megabytes = (backup.bytes / 1_048_576).toFixed(1);
      process.stdout.write(`Backed up into ${backup.folder} (${backup.files.join(', ')}; ${megabytes} MB).\n`);
      if (backup.keyFromEnvironment) process.stdout.write('The node key comes from PUNCHCARD_NODE_KEY: keep it with the backup, or the copy cannot be opened.\n');
      process.stdout.write(`To restore: stop the node, then start it on ${backup.folder} (or put its files in place of the folder's).\n`);
    });
}
