import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ServiceError } from '../../shared/errors';
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

/** `node_running` when another process runs a store node on this folder; `instead` says what else the operator can do. */
export function refuseWhileNodeRuns(dataDir: DataDir, instead = ''): void {
  const pid = runningNodeOf(dataDir);
  if (pid !== null) {
    throw new ServiceError('node_running', `A Punchcard store node (process ${pid}) is running on ${dataDir.root}: stop it first${instead}. (If none is, remove ${dataDir.pidFile}.)`);
  }
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
 * PUNCHCARD_NODE_KEY (64 hex characters) or the data folder's node.key, created on first use with
 * owner-only permissions. Without it sealed values cannot be read: back it up with the database.
 */
export function loadNodeKey(dataDir: DataDir, env: NodeJS.ProcessEnv = process.env): Buffer {
  const fromEnv = nodeKeyFromEnv(env);
  if (fromEnv) return fromEnv;
  if (!existsSync(dataDir.keyFile)) {
    writeFileSync(dataDir.keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(dataDir.keyFile, 0o600);
  }
  const text = readFileSync(dataDir.keyFile, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${dataDir.keyFile} is not a valid node key.`);
  return Buffer.from(text, 'hex');
}

/** PUNCHCARD_NODE_KEY's key; null when unset. A malformed one is the operator's to fix. */
export function nodeKeyFromEnv(env: NodeJS.ProcessEnv): Buffer | null {
  const fromEnv = env.PUNCHCARD_NODE_KEY;
  if (!fromEnv) return null;
  if (!/^[0-9a-fA-F]{64}$/.test(fromEnv)) throw new SettingError('PUNCHCARD_NODE_KEY must be 64 hexadecimal characters (32 bytes).');
  return Buffer.from(fromEnv, 'hex');
}
