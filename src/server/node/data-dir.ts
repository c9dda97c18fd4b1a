import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// A node's data folder holds its SQLite database, its key, its logs and its outbox files: customers'
// personal data, so the folder is its owner's alone (0700), whatever the umask or an older node left.
export interface DataDir {
  root: string;
  database: string;
  keyFile: string;
  logFile: string;
}

export function openDataDir(dir: string): DataDir {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  chmodSync(root, 0o700);
  return { root, database: join(root, 'punchcard.db'), keyFile: join(root, 'node.key'), logFile: join(root, 'logs', 'node.log') };
}

/**
 * The node key (32 bytes) seals values that must be returned later (card pins). It comes from
 * PUNCHCARD_NODE_KEY (64 hex characters) or the data folder's node.key, created on first use with
 * owner-only permissions. Without it sealed values cannot be read: back it up with the database.
 */
export function loadNodeKey(dataDir: DataDir, env: NodeJS.ProcessEnv = process.env): Buffer {
  const fromEnv = env.PUNCHCARD_NODE_KEY;
  if (fromEnv) {
    if (!/^[0-9a-fA-F]{64}$/.test(fromEnv)) throw new Error('PUNCHCARD_NODE_KEY must be 64 hexadecimal characters (32 bytes).');
    return Buffer.from(fromEnv, 'hex');
  }
  if (!existsSync(dataDir.keyFile)) {
    writeFileSync(dataDir.keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(dataDir.keyFile, 0o600);
  }
  const text = readFileSync(dataDir.keyFile, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${dataDir.keyFile} is not a valid node key.`);
  return Buffer.from(text, 'hex');
}
