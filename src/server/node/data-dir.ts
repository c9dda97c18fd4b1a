import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { Sealer } from '../../core/credentials/secrets';
import { getMeta, setMeta } from '../../core/storage/node-meta';
import type { DB } from '../../core/storage/schema';
import { ServiceError } from '../../shared/errors';
import { readFolderRecord } from './folder-record';
import { SettingError } from './setting-error';

// A node's data folder holds its SQLite database, its key, its logs and its outbox files: customers'
// personal data, so the folder is its owner's alone (0700), whatever the umask or an older node left.
export interface DataDir {
  root: string;
  database: string;
  keyFile: string;
  logFile: string;
  /** The process id of the node running on this folder, while it runs (runningNodeOf). */
  pidFile: string;
}

export function openDataDir(dir: string): DataDir {
  const paths = dataDirAt(dir);
  mkdirSync(paths.root, { recursive: true, mode: 0o700 });
  chmodSync(paths.root, 0o700);
  return paths;
}

/** The folder's paths, without making anything (commands that only read check first). */
export function dataDirAt(dir: string): DataDir {
  const root = resolve(dir);
  return { root, database: join(root, 'punchcard.db'), keyFile: join(root, 'node.key'), logFile: join(root, 'logs', 'node.log'), pidFile: join(root, 'node.pid') };
}

/**
 * Marks the folder as run by this process until the returned function is called, refused while
 * another node runs on it: `punchcard store --pair` and `unpair` change its files and must not while
 * a node serves from them (unpair renamed the database under a running node, which went on writing
 * to the renamed file).
 */
export function claimDataDir(dataDir: DataDir): () => void {
  refuseWhileNodeRuns(dataDir);
  writeFileSync(dataDir.pidFile, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    if (runningNodeOf(dataDir, { countSelf: true }) === process.pid) rmSync(dataDir.pidFile, { force: true });
  };
}

/** `node_running` when another process runs a node on this folder; `instead` says what else the operator can do. */
export function refuseWhileNodeRuns(dataDir: DataDir, instead = ''): void {
  const pid = runningNodeOf(dataDir);
  if (pid !== null) {
    throw new ServiceError('node_running', `A Punchcard node (process ${pid}) is running on ${dataDir.root}: stop it first${instead}. (If none is, remove ${dataDir.pidFile}.)`);
  }
}

/**
 * Refuses a command that is a store's (`store`, `sync status`) on a central node's folder (DIR/node.json
 * says so, written when `punchcard central` first ran there): a store node there would serve, and
 * write to, the chain's database.
 */
export function refuseCentralsFolder(dataDir: DataDir, what: string, instead: string): void {
  if (readFolderRecord(dataDir.root).role === 'central') throw new SettingError(`${dataDir.root} is a central node's folder: ${what} is a store's. ${instead}`);
}

/**
 * The process id of another live process running a node on this folder; null when none (no mark,
 * or the mark of a process that has ended: a node killed without stopping). This process's own
 * mark counts only with `countSelf` (the screens' pairing restarts the node in-process).
 */
export function runningNodeOf(dataDir: DataDir, options: { countSelf?: boolean } = {}): number | null {
  if (!existsSync(dataDir.pidFile)) return null;
  const pid = Number(readFileSync(dataDir.pidFile, 'utf8').trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  if (pid === process.pid) return options.countSelf ? pid : null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, another user's; ESRCH: gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return mayBeANode(pid) ? pid : null;
}

/**
 * Whether a live process could be a node (Node.js or the desktop app): a folder restored from a
 * backup, or a machine restarted, may hold a mark whose number another program now has. Linux
 * tells by /proc; elsewhere any live process counts.
 */
function mayBeANode(pid: number): boolean {
  let commandLine: string;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  return /node|punchcard|electron/i.test(commandLine);
}

/**
 * The node key (32 bytes) seals values that must be returned later (card pins). It comes from
 * PUNCHCARD_NODE_KEY (64 hex characters) or the data folder's node.key, made at the first start
 * with owner-only permissions (openNodeEngine, once the database says no other key sealed it).
 * Without it sealed values cannot be read: back it up with the database.
 */
function readNodeKeyFile(dataDir: DataDir): Buffer {
  const text = readFileSync(dataDir.keyFile, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${dataDir.keyFile} is not a valid node key.`);
  return Buffer.from(text, 'hex');
}

/** Writes a new node key to DIR/node.key (owner-only); never over one that is there. */
export function saveNewNodeKey(dataDir: DataDir, key: Buffer): void {
  writeFileSync(dataDir.keyFile, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(dataDir.keyFile, 0o600);
}

/** PUNCHCARD_NODE_KEY's key; null when unset. A malformed one is the operator's to fix. */
export function nodeKeyFromEnv(env: NodeJS.ProcessEnv): Buffer | null {
  const fromEnv = env.PUNCHCARD_NODE_KEY;
  if (!fromEnv) return null;
  if (!/^[0-9a-fA-F]{64}$/.test(fromEnv)) throw new SettingError('PUNCHCARD_NODE_KEY must be 64 hexadecimal characters (32 bytes).');
  return Buffer.from(fromEnv, 'hex');
}

/** node_meta: a short text sealed with the node key the first time a node started on the database. */
const NODE_KEY_CHECK = 'node_key_check';
const NODE_KEY_CHECK_TEXT = 'punchcard node key';

/**
 * The key a node on this folder would use, without making one: PUNCHCARD_NODE_KEY, else DIR/node.key;
 * `key` null when neither is there yet (the first start makes node.key).
 */
export function nodeKeyInUse(dataDir: DataDir, env: NodeJS.ProcessEnv = process.env): { key: Buffer | null; fromEnv: boolean } {
  const fromEnv = nodeKeyFromEnv(env);
  if (fromEnv) return { key: fromEnv, fromEnv: true };
  if (!existsSync(dataDir.keyFile)) return { key: null, fromEnv: false };
  return { key: readNodeKeyFile(dataDir), fromEnv: false };
}

/**
 * Refuses a node key that is not the one the database's sealed values were sealed with (another
 * PUNCHCARD_NODE_KEY, a node.key from another folder, or a lost node.key about to be made anew):
 * the node would start, and every card with a PIN, webhook secret and queued message would then
 * fail to open ("unable to authenticate data"). The proof is a short text sealed at the first start
 * (node_meta `node_key_check`); a database from before it is checked against one value it already
 * sealed (a card PIN, a webhook secret, a queued message), then given the text. `key` null: no key
 * yet, so nothing is written. Takes a migrated database.
 */
export async function checkNodeKeyAgainstData(db: Kysely<DB>, dataDir: DataDir, { key, fromEnv }: { key: Buffer | null; fromEnv: boolean }): Promise<void> {
  const check = await getMeta(db, NODE_KEY_CHECK);
  const sealed = check ?? (await anySealedValue(db));
  if (sealed !== null) {
    if (key === null) {
      throw new SettingError(
        `${dataDir.keyFile} is missing, and this folder's database holds values sealed with a node key: restore node.key from the folder's backup, or set PUNCHCARD_NODE_KEY to that key (a new key would not open them).`,
      );
    }
    if (!opens(new Sealer(key), sealed)) {
      throw new SettingError(
        fromEnv
          ? `PUNCHCARD_NODE_KEY is not the key this folder's database was sealed with (card PINs, webhook secrets): set it to that key, or unset it to use ${dataDir.keyFile}.`
          : `${dataDir.keyFile} is not the key this folder's database was sealed with (card PINs, webhook secrets): restore the node.key of its backup, or set PUNCHCARD_NODE_KEY to that key.`,
      );
    }
  }
  if (check === null && key !== null) await setMeta(db, NODE_KEY_CHECK, new Sealer(key).seal(NODE_KEY_CHECK_TEXT));
}

function opens(sealer: Sealer, sealed: string): boolean {
  try {
    sealer.open(sealed);
    return true;
  } catch {
    return false;
  }
}

/** One value the node key sealed, from a database older than its check; null when it sealed none. */
async function anySealedValue(db: Kysely<DB>): Promise<string | null> {
  const pin = await db.selectFrom('cards').select('pin_sealed').where('pin_sealed', 'is not', null).limit(1).executeTakeFirst();
  if (pin?.pin_sealed) return pin.pin_sealed;
  const secret = await db.selectFrom('webhook_endpoints').select('secret_sealed').limit(1).executeTakeFirst();
  if (secret) return secret.secret_sealed;
  // A message queued by a version that did not seal its parameters holds plain JSON.
  const message = await db.selectFrom('messages_outbox').select('params').where('params', 'is not', null).where('params', 'not like', '{%').limit(1).executeTakeFirst();
  return message?.params ?? null;
}
