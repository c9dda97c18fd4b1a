import { existsSync, renameSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { openDatabaseUrl } from '../../core/storage/database';
import { migrateToLatest } from '../../core/storage/database';
import { getMeta, setMeta } from '../../core/storage/node-meta';
import type { DB } from '../../core/storage/schema';
import { summariseOutbox } from '../../core/sync/outbox/pending-events';
import type { PairResponse } from '../../core/sync/protocol';
import { ServiceError } from '../../shared/errors';
import { type DataDir, openDataDir, refuseWhileNodeRuns } from '../node/data-dir';
import { pairingLost } from '../node/lost-pairing';
import { CentralError, notACentral, requestPairing } from './http-transport';
import { readPairing, removePairing, type StorePairing, writePairing } from './pairing-file';

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
 * Pairs a store node's data folder with a central node (the node is not running: the CLI). A store
 * joins a chain empty: the chain's customers, balances and rules come from central, and local data
 * of its own (a standalone program) cannot be merged into another program safely. A folder with
 * data is refused unless the operator asks to set it aside (kept, renamed, never deleted).
 */
export async function pairStoreWithCentral(options: PairOptions): Promise<StorePairing> {
  const dir = openDataDir(options.dataDir);
  refuseWhileRunning(dir);
  // The CLI names the way out (a store revoked at central keeps its central.json, so this is its case too).
  const paired = readPairing(dir);
  if (paired) {
    const unpair = `punchcard unpair --data ${shellWord(options.dataDir)}`;
    throw new ServiceError('store_already_paired', `This store node is already paired with ${paired.central} (also when central has revoked it). Unpair it first: \`${unpair}\`, then pair with the new code.`);
  }
  const central = checkPairable(dir, options.central);
  const hasData = existsSync(dir.database) && (await withDatabase(dir, options.sqliteNativeBinding, hasOwnData));
  if (hasData && !options.replaceLocalData) throw new ServiceError('pairing_needs_empty_store');
  const reply = await redeemPairingCode(central, options.code, options.label ?? hostname());
  return installPairing(dir, central, reply, options);
}

/**
 * Asks central to pair with a code. A wrong code or too many tries keep central's answer; an
 * address that does not answer like a central node (down, not Punchcard) is `central_unreachable`.
 */
export async function redeemPairingCode(central: string, code: string, label: string): Promise<PairResponse> {
  try {
    return await requestPairing(central, code.trim().toUpperCase(), label);
  } catch (error) {
    if (error instanceof CentralError && (error.code === 'pairing_code_invalid' || error.code === 'rate_limited' || error.code === 'validation_failed')) {
      throw new ServiceError(error.code === 'validation_failed' ? 'pairing_code_invalid' : error.code);
    }
    // Something answered, but not as a central (a store, a web page): said so, not "no central node answered".
    if (error instanceof CentralError && error.code === 'not_a_central') {
      throw new ServiceError('validation_failed', notACentral(`${central}/sync/pair`, error.status, 'check the central address.'), 'central');
    }
    throw new ServiceError('central_unreachable', `No central node answered at ${central}. Check the address and the network.`);
  }
}

/** A folder as a shell reads it back (quoted when it has spaces or quotes). */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** Refuses a folder already paired and an address that is not http(s); returns the address without trailing slashes. */
export function checkPairable(dir: DataDir, address: string): string {
  if (readPairing(dir)) throw new ServiceError('store_already_paired');
  const central = address.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(central)) throw new ServiceError('validation_failed', 'The central address must start with http:// or https://.', 'central');
  return central;
}

/** "store 3 (Harbour)": the store a pairing is for, by name where central gave one. */
export function storeNamed(pairing: Pick<StorePairing, 'store_id' | 'store_name'>): string {
  return pairing.store_name === undefined ? `store ${pairing.store_id}` : `store ${pairing.store_id} (${pairing.store_name})`;
}

/** After central accepted the code: the store's own data set aside, a fresh database numbered by central, the pairing remembered. */
export async function installPairing(
  dir: DataDir,
  central: string,
  reply: PairResponse,
  options: { sqliteNativeBinding?: string | undefined; now?: () => number },
): Promise<StorePairing> {
  const now = options.now?.() ?? Date.now();
  setDatabaseAside(dir, 'before-pairing', now);
  await withDatabase(dir, options.sqliteNativeBinding, async (db) => {
    // Central numbered this node: every id it makes from now on is unique in the chain.
    await setMeta(db, 'node_id', String(reply.node_id));
  });
  const pairing: StorePairing = {
    central,
    node_id: reply.node_id,
    vendor_id: reply.vendor_id,
    store_id: reply.store_id,
    ...(reply.store_name !== undefined ? { store_name: reply.store_name } : {}),
    credential: reply.credential,
    paired_at: new Date(now).toISOString(),
  };
  writePairing(dir, pairing);
  return pairing;
}

export interface UnpairOptions {
  dataDir: string;
  /** Unpair even though sales made here have not reached central (they stay in the set-aside database). */
  discardUnsent?: boolean;
  sqliteNativeBinding?: string | undefined;
  now?: () => number;
}

/**
 * Unpairs a store node (not running): its database, a copy of the chain's program, is set aside
 * (punchcard.db.unpaired-<time>, kept) so the node never runs a fork of the program on its own.
 * Refused while sales wait to be sent, unless discarding them is asked for.
 */
export async function unpairStore(options: UnpairOptions): Promise<{ setAside: string | null }> {
  const dir = openDataDir(options.dataDir);
  refuseWhileRunning(dir);
  // central.json lost over the chain's data (the node refuses to start): leaving the chain is a way out.
  const lost = await pairingLost(dir, options.sqliteNativeBinding);
  if (!readPairing(dir) && !lost) throw new ServiceError('store_not_paired');
  if (!options.discardUnsent && existsSync(dir.database)) {
    // Central revoked this node: what it did not send can never be sent, so nothing is discarded by unpairing.
    const { pending, unpairedAtCentral } = await withDatabase(dir, options.sqliteNativeBinding, async (db) => ({
      pending: (await summariseOutbox(db)).pending,
      unpairedAtCentral: (await getMeta(db, 'sync_unpaired_at_central')) !== null,
    }));
    const send = lost ? 'Put central.json back and start the store node so it sends them' : 'Start the store node so it sends them to central';
    if (!unpairedAtCentral) refuseUnsent(pending, `${send}, or unpair with --discard-unsent (they stay in the set-aside database).`);
  }
  return finishUnpairing(dir, options.now?.() ?? Date.now());
}

/** The folder's files must not change under a store node running on them (another process). */
const refuseWhileRunning = (dir: DataDir) => refuseWhileNodeRuns(dir, ', or pair and unpair from its Settings screen');

/** Refuses while changes made here (sales, check-ins, registrations…) wait to be sent; `way` says what the caller can do. */
export function refuseUnsent(pending: number, way: string): void {
  if (pending === 0) return;
  const changes = pending === 1 ? '1 change made here (a sale, check-in or registration) has' : `${pending} changes made here (sales, check-ins, registrations) have`;
  throw new ServiceError('unsent_sales', `${changes} not reached central yet. Unpairing now would leave them out of the chain. ${way}`);
}

/** The files' part of unpairing, once the node's database is closed. */
export function finishUnpairing(dir: DataDir, now: number): { setAside: string | null } {
  const setAside = setDatabaseAside(dir, 'unpaired', now);
  removePairing(dir);
  return { setAside };
}

/** Renames the database (and its WAL files) to `<db>.<label>-<time>`; returns the new name, or null when there was none. */
function setDatabaseAside(dir: DataDir, label: string, now: number): string | null {
  if (!existsSync(dir.database)) return null;
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const target = `${dir.database}.${label}-${stamp}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(dir.database + suffix)) renameSync(dir.database + suffix, target + suffix);
  }
  return target;
}

/** Whether a store's database holds a program of its own. */
export async function hasOwnData(db: Kysely<DB>): Promise<boolean> {
  return (await db.selectFrom('vendors').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Whether the node holds a program other than `vendorId`. */
export async function holdsOtherPrograms(db: Kysely<DB>, vendorId: number): Promise<boolean> {
  return (await db.selectFrom('vendors').select('id').where('id', '!=', vendorId).limit(1).executeTakeFirst()) !== undefined;
}

async function withDatabase<T>(dir: DataDir, nativeBinding: string | undefined, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const database = openDatabaseUrl(dir.database, { nativeBinding });
  try {
    await migrateToLatest(database.db);
    return await work(database.db);
  } finally {
    await database.close();
  }
}
