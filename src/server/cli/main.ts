import { Command, CommanderError } from 'commander';
import { isServiceError } from '../../shared/errors';
import { VERSION } from '../../shared/version';
import { registerDemoCommand } from './demo-command';
import { registerInitCommand } from './init-command';
import { registerKeyCommand } from './key-command';
import { registerStoreCommand } from './store-command';
import { registerStoresCommand } from './stores-command';
import { registerTokenCommand } from './token-command';
import { registerCentralCommand } from './central-command';
import { registerPairCodeCommand } from './pair-code-command';
import { registerSyncCommand } from './sync-command';
import { registerUnpairCommand } from './unpair-command';

export function buildCli(): Command {
  const program = new Command('punchcard')
    .description('Punchcard: loyalty points and stored value at the store counter.')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerInitCommand(program);
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
    if (isServiceError(error)) console.error(`punchcard: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  }
}
