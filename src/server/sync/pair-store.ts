import { existsSync, renameSync } from 'node:fs';
import { hostname } from 'node:os';
import { openDatabaseUrl } from '../../core/storage/database';
import { migrateToLatest } from '../../core/storage/database';
import { setMeta } from '../../core/storage/node-meta';
import { ServiceError } from '../../shared/errors';
import { openDataDir } from '../node/data-dir';
import { requestPairing } from './http-transport';
import { readPairing, type StorePairing, writePairing } from './pairing-file';

export interface PairOptions {
  dataDir: string;
  central: string;
  code: string;
  /** Set the store's own data aside (punchcard.db.before-pairing-<time>) instead of refusing. */
  replaceLocalData?: boolean;
  label?: string;
  sqliteNativeBinding?: string | undefined;
  now?: () => number;
}

/**
 * Pairs a store node's data folder with a central node. A store joins a chain empty: the chain's
 * customers, balances and rules come from central, and local data of its own (a standalone
 * program) cannot be merged into another program safely. A folder with data is refused unless
 * the operator asks to set it aside (kept, renamed, never deleted).
 */
export async function pairStoreWithCentral(options: PairOptions): Promise<StorePairing> {
  const dir = openDataDir(options.dataDir);
  if (readPairing(dir)) throw new ServiceError('store_already_paired');
  const central = options.central.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(central)) throw new ServiceError('validation_failed', 'The central address must start with http:// or https://.', 'central');
  if (existsSync(dir.database) && (await hasOwnData(dir.database, options.sqliteNativeBinding))) {
    if (!options.replaceLocalData) throw new ServiceError('pairing_needs_empty_store');
    const stamp = new Date(options.now?.() ?? Date.now()).toISOString().replace(/[:.]/g, '-');
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(dir.database + suffix)) renameSync(dir.database + suffix, `${dir.database}.before-pairing-${stamp}${suffix}`);
    }
  }
  const reply = await requestPairing(central, options.code, options.label ?? hostname());
  const database = openDatabaseUrl(dir.database, { nativeBinding: options.sqliteNativeBinding });
  try {
    await migrateToLatest(database.db);
    // Central numbered this node: every id it makes from now on is unique in the chain.
    await setMeta(database.db, 'node_id', String(reply.node_id));
  } finally {
    await database.close();
  }
  const pairing: StorePairing = {
    central,
    node_id: reply.node_id,
    vendor_id: reply.vendor_id,
    store_id: reply.store_id,
    credential: reply.credential,
    paired_at: new Date(options.now?.() ?? Date.now()).toISOString(),
  };
  writePairing(dir, pairing);
  return pairing;
}

async function hasOwnData(file: string, nativeBinding: string | undefined): Promise<boolean> {
  const database = openDatabaseUrl(file, { nativeBinding });
  try {
    await migrateToLatest(database.db);
    const vendor = await database.db.selectFrom('vendors').select('id').limit(1).executeTakeFirst();
    return vendor !== undefined;
  } finally {
    await database.close();
  }
}
