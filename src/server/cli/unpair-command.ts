import type { Command } from 'commander';
import { ServiceError } from '../../shared/errors';
import { dataDirAt } from '../node/data-dir';
import { pairingLost } from '../node/lost-pairing';
import { readPairing } from '../sync/pairing-file';
import { unpairStore } from '../sync/pair-store';

/** `punchcard unpair`: a stopped store node leaves its chain; its chain database is set aside (kept). */
export function registerUnpairCommand(program: Command): void {
  program
    .command('unpair')
    .description("Unpair a stopped store node from its central node. Its database (the chain's data) is set aside, kept; refused while sales wait to be sent.")
    .requiredOption('--data <dir>', "store node's data folder")
    .option('--discard-unsent', 'unpair even though sales made here have not reached central (they stay in the set-aside database)')
    .option('--json', 'print {"unpaired": true, "set_aside"}')
    .action(async (options: { data: string; discardUnsent?: boolean; json?: boolean }) => {
      // Said before "stop it first": a running node that was never paired has nothing to unpair.
      const dir = dataDirAt(options.data);
      if (readPairing(dir) === null && !(await pairingLost(dir))) throw new ServiceError('store_not_paired', `${dir.root} is not paired with a central node: nothing to unpair.`);
      const { setAside } = await unpairStore({ dataDir: options.data, discardUnsent: options.discardUnsent ?? false });
      process.stdout.write(options.json ? `${JSON.stringify({ unpaired: true, set_aside: setAside })}\n` : `Unpaired.${setAside ? ` The chain's data is kept in ${setAside}.` : ''}\n`);
    });
}
