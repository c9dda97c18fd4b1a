import { Command, CommanderError } from 'commander';
import { unavailabilityOf } from '../../core/storage/unavailable';
import { isServiceError } from '../../shared/errors';
import { VERSION } from '../../shared/version';
import { registerBackupCommand } from './backup-command';
import { registerDemoCommand } from './demo-command';
import { registerImportCommand } from './import-command';
import { registerInitCommand } from './init-command';
import { registerOwnerCommand } from './owner-command';
import { registerKeyCommand } from './key-command';
import { registerStoreCommand } from './store-command';
import { registerStoresCommand } from './stores-command';
import { registerTokenCommand } from './token-command';
import { registerTokensCommand } from './tokens-command';
import { registerCentralCommand } from './central-command';
import { registerPairCodeCommand } from './pair-code-command';
import { registerSyncCommand } from './sync-command';
import { registerUnpairCommand } from './unpair-command';
import { isSettingError } from '../node/setting-error';
import { hostProblem, portProblem } from './folder-checks';

export function buildCli(): Command {
  const program = new Command('punchcard')
    .description('Punchcard: loyalty points and stored value at the store counter.')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerInitCommand(program);
  registerOwnerCommand(program);
  registerStoreCommand(program);
  registerStoresCommand(program);
  registerTokenCommand(program);
  registerTokensCommand(program);
  registerKeyCommand(program);
  registerDemoCommand(program);
  registerCentralCommand(program);
  registerPairCodeCommand(program);
  registerSyncCommand(program);
  registerUnpairCommand(program);
  registerBackupCommand(program);
  registerImportCommand(program);
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  exitQuietlyOnBrokenPipe(process.stdout);
  exitQuietlyOnBrokenPipe(process.stderr);
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    // Expected failures print one clear line; anything else is a bug and keeps its stack.
    const problem = isServiceError(error) || isSettingError(error) ? error.message : (databaseProblem(error) ?? addressProblem(error));
    if (problem) console.error(`punchcard: ${problem}`);
    else console.error(error);
    process.exitCode = 1;
  }
}

/** A PostgreSQL database that is missing or not answering (PUNCHCARD_DATABASE_URL, --database): the operator's to fix. */
function databaseProblem(error: unknown): string | null {
  // The data folder's SQLite file or its disk (full, read-only, failing, damaged): what to do, not a stack.
  const storage = unavailabilityOf(error);
  if (storage?.kind === 'storage') return `the data folder's database cannot be used (${storage.cause}): ${storage.advice}. This command stopped: run it again once that is done.`;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '3D000') return `${String(message)}: create it first (for example \`createdb -h HOST -U USER NAME\`).`;
  if (code === 'ECONNREFUSED') return `no database answered (${String(message)}): is PostgreSQL running at that address?`;
  if (code === '28P01' || code === '28000') return `the database refused the credentials: ${String(message)}.`;
  // Kysely's words for a database a newer release migrated: "corrupted" would alarm a merchant.
  const newer = /previously executed migration (\S+) is missing/.exec(String(message));
  if (newer) return `this database was written by a newer Punchcard (its change ${newer[1]} is unknown to version ${VERSION}): run that version or a newer one. Nothing was changed.`;
  return null;
}

/**
 * The port a serving command was given is taken (another node, another program), or its --host is
 * not this machine's (checkHost tells before the start; this is for one that changed since): the
 * operator's to fix.
 */
function addressProblem(error: unknown): string | null {
  const { code, port, address, syscall } = (error ?? {}) as { code?: unknown; port?: unknown; address?: unknown; syscall?: unknown };
  if (code === 'EADDRINUSE') return portProblem(String(port), String(address));
  if (code === 'EADDRNOTAVAIL' && syscall === 'listen') return hostProblem(String(address), 'this machine has no such address');
  return null;
}

const watched = new WeakSet<NodeJS.WriteStream>();

/**
 * Output read by a program that stops reading (`punchcard sync status | head -3`): the command ends
 * quietly, as a Unix command does on SIGPIPE, rather than with an unhandled EPIPE stack trace.
 */
function exitQuietlyOnBrokenPipe(stream: NodeJS.WriteStream): void {
  if (watched.has(stream)) return;
  watched.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}
