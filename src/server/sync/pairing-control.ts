import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { summariseOutbox } from '../../core/sync/outbox/pending-events';
import { ServiceError } from '../../shared/errors';
import { openDataDir } from '../node/data-dir';
import type { RunningNode } from '../node/store-node';
import { checkPairable, hasOwnData, holdsOtherPrograms, installPairing, redeemPairingCode, refuseUnsent, unpairStore } from './pair-store';
import { readPairing } from './pairing-file';

/** Pairing and unpairing a running store node from its screens (POST and DELETE /sync/pairing). */
export interface PairingControl {
  /** `vendorId`: the program of the key that asks. */
  pair(input: { vendorId: number; central: string; code: string; replaceLocalData: boolean; label?: string | undefined }): Promise<{ central: string; node_id: number; store_id: number; store_name: string | null }>;
  unpair(input: { discardUnsent: boolean }): Promise<{ discarded: number }>;
}

/**
 * Everything that can be refused is checked while the node runs (and central has accepted the
 * code before anything changes here); the files change during an in-process restart, after the
 * reply has left, so the screen hears the answer before its connection drops.
 */
export function createPairingControl(
  node: RunningNode,
  options: { dataDir: string; database?: string | undefined; sqliteNativeBinding?: string | undefined; logger?: FastifyBaseLogger | undefined },
): PairingControl {
  const dir = openDataDir(options.dataDir);
  // Pairing sets the data folder's SQLite file aside; a store on another database is paired by hand.
  const ownFile = options.database === undefined && !process.env.PUNCHCARD_DATABASE_URL;
  const refuseForeignDatabase = () => {
    if (!ownFile) throw new ServiceError('pairing_unavailable');
  };
  // Called from setImmediate, once the reply has left: a failure is logged, never answered (so the
  // OpenAPI document's error table, which skips such callbacks, does not list what `between` throws).
  const restartWith = (between: () => Promise<unknown>) => {
    node.restart(async () => void (await between())).catch((error: unknown) => options.logger?.error({ err: error }, 'restart after a pairing change failed'));
  };
  return {
    async pair(input) {
      refuseForeignDatabase();
      const central = checkPairable(dir, input.central);
      // One program's cashier must not set another program's data aside (its keys then stop working).
      if (await holdsOtherPrograms(node.engine.db, input.vendorId)) throw new ServiceError('pairing_other_programs');
      if ((await hasOwnData(node.engine.db)) && !input.replaceLocalData) throw new ServiceError('pairing_needs_empty_store');
      const reply = await redeemPairingCode(central, input.code, input.label ?? hostname());
      setImmediate(() => restartWith(() => installPairing(dir, central, reply, { sqliteNativeBinding: options.sqliteNativeBinding })));
      return { central, node_id: reply.node_id, store_id: reply.store_id, store_name: reply.store_name ?? null };
    },
    async unpair(input) {
      refuseForeignDatabase();
      if (!readPairing(dir)) throw new ServiceError('store_not_paired');
      const { pending } = await summariseOutbox(node.engine.db);
      if (!input.discardUnsent && !node.engine.centralLink.unpaired) refuseUnsent(pending, 'Wait until the node reaches central, or unpair with discard_unsent=true (they stay in the set-aside database).');
      // Counted again once the node has stopped: a sale that landed meanwhile (a request in flight,
      // a scan) keeps the node paired instead of going aside unsent, as the answer said nothing would.
      setImmediate(() => restartWith(() => unpairStore({ dataDir: options.dataDir, discardUnsent: input.discardUnsent, sqliteNativeBinding: options.sqliteNativeBinding })));
      return { discarded: pending };
    },
  };
}
