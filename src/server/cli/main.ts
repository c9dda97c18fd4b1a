import { Command, CommanderError } from 'commander';
import { isServiceError } from '../../shared/errors';
import { VERSION } from '../../shared/version';
import { registerDemoCommand } from './demo-command';
import { registerInitCommand } from './init-command';
import { registerOwnerCommand } from './owner-command';
import { registerKeyCommand } from './key-command';
import { registerStoreCommand } from './store-command';
import { registerStoresCommand } from './stores-command';
import { registerTokenCommand } from './token-command';
import { registerCentralCommand } from './central-command';
import { registerPairCodeCommand } from './pair-code-command';
import { registerSyncCommand } from './sync-command';
import { registerUnpairCommand } from './unpair-command';
import { isSettingError } from '../node/setting-error';

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
  registerKeyCommand(program);
  registerDemoCommand(program);
  registerCentralCommand(program);
  registerPairCodeCommand(program);
  registerSyncCommand(program);
  registerUnpairCommand(program);
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
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
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '3D000') return `${String(message)}: create it first (for example \`createdb -h HOST -U USER NAME\`).`;
  if (code === 'ECONNREFUSED') return `no database answered (${String(message)}): is PostgreSQL running at that address?`;
  if (code === '28P01' || code === '28000') return `the database refused the credentials: ${String(message)}.`;
  return null;
}

/** The port a serving command was given is taken (another node, another program): the operator's to fix. */
function addressProblem(error: unknown): string | null {
  const { code, port, address } = (error ?? {}) as { code?: unknown; port?: unknown; address?: unknown };
  if (code !== 'EADDRINUSE') return null;
  return `port ${String(port)} on ${String(address)} is in use: stop what holds it, or choose another with --port.`;
}
