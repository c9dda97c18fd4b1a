import { existsSync } from 'node:fs';
import { openDatabaseUrl } from '../../core/storage/database';
import { CENTRAL_NODE_ID, UNPAIRED_NODE_FLOOR } from '../../core/storage/ids';
import { getMeta } from '../../core/storage/node-meta';
import { readPairing } from '../sync/pairing-file';
import type { DataDir } from './data-dir';
import { SettingError } from './setting-error';

/**
 * Whether a store's database is a chain's: its node number was handed out by central when it paired
 * (below 2^20), written before central.json and never changed, while a store that never paired
 * draws its own from [2^20, 2^21). Central's own number (0) is not a store's.
 */
export function numberedByCentral(nodeId: number): boolean {
  return nodeId !== CENTRAL_NODE_ID && nodeId < UNPAIRED_NODE_FLOOR;
}

/**
 * A paired store whose central.json was lost (a restore that missed it, a cleanup) must not start
 * as a standalone store on the chain's data: it would sell on a copy of central's program and its
 * sales would never reach central, with nobody told.
 */
export function refuseLostPairing(dir: DataDir, nodeId: number): void {
  if (!numberedByCentral(nodeId)) return;
  throw new SettingError(lostPairingProblem(dir, nodeId));
}

/** What `store` says of a folder whose pairing was lost, and the ways out (`sync status` says it too). */
export function lostPairingProblem(dir: DataDir, nodeId: number): string {
  return (
    `${dir.root} holds a chain's data (it was paired with a central node as node ${nodeId}) but its pairing file central.json is missing: started so, it would sell on its own and its sales would never reach central. ` +
      `Put central.json back from a backup of this folder (\`punchcard backup\` copies it), ` +
      `or pair again with \`punchcard store --data ${dir.root} --central URL --pair CODE --replace-local-data\`, ` +
      `or leave the chain with \`punchcard unpair --data ${dir.root}\` (either sets this copy of the chain's data aside, kept).`
  );
}

/**
 * A store folder whose SQLite database is a chain's while its central.json is gone (read without
 * migrating: a node of another version may run on it). `punchcard unpair` takes this as paired.
 */
export async function pairingLost(dir: DataDir, nativeBinding?: string): Promise<boolean> {
  if (readPairing(dir) !== null || !existsSync(dir.database)) return false;
  const database = openDatabaseUrl(dir.database, { nativeBinding });
  try {
    const nodeId = await getMeta(database.db, 'node_id').catch(() => null);
    return nodeId !== null && numberedByCentral(Number(nodeId));
  } finally {
    await database.close();
  }
}
