import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Engine } from '../../core/engine';
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabaseUrl, pendingMigrations } from '../../core/storage/database';
import type { DB } from '../../core/storage/schema';
import { checkNodeKeyAgainstData, type DataDir, dataDirAt, nodeKeyInUse, runningNodeOf } from '../node/data-dir';
import { checkDatabaseUrl, databaseLocation } from '../node/node-settings';
import { readFolderRecord } from '../node/folder-record';
import { checkFolderDatabase } from '../node/folder-database';
import { SettingError } from '../node/setting-error';
import { type NodeEngineOptions, openNodeEngine } from '../node/store-node';

/**
 * Before a command opens a folder that has a database: the node key it would use (PUNCHCARD_NODE_KEY,
 * else DIR/node.key) is the one the database sealed its values with — a different one is refused
 * in one line before anything starts (the node started, and every card with a PIN was then a 500).
 * A folder with no database yet has nothing to check: openNodeEngine marks it once opened. A
 * PostgreSQL database is checked to be the folder's first (checkFolderDatabase).
 */
export async function checkFolderNodeKey(options: { dataDir: string; database?: string | undefined; existing?: boolean }): Promise<void> {
  // The command line's database is PostgreSQL's, named by its URL; nothing else (a path, mysql://).
  checkDatabaseUrl(options.database, '--database');
  checkDatabaseUrl(process.env.PUNCHCARD_DATABASE_URL, 'PUNCHCARD_DATABASE_URL');
  const dir = dataDirAt(options.dataDir);
  const location = databaseLocation(dir, options.database ?? (process.env.PUNCHCARD_DATABASE_URL || undefined), { existing: options.existing ?? false });
  const postgres = location !== dir.database;
  if (!postgres && !existsSync(location)) return;
  const database = openDatabaseUrl(location);
  try {
    // The folder's own database, not one a typo named: before anything is written to it.
    if (postgres) await checkFolderDatabase(database.db, dir, { url: location, from: options.database ? '--database' : 'PUNCHCARD_DATABASE_URL', existing: options.existing ?? false });
    await migrateUnlessOlderNodeRuns(database.db, dir);
    await checkNodeKeyAgainstData(database.db, dir, nodeKeyInUse(dir));
  } finally {
    await database.close();
  }
}

/**
 * A central's folder with its node key and no database file, and no record of where its database
 * is: a central on PostgreSQL made before folders recorded it (DIR/node.json). Started without
 * the database's URL it opened an empty SQLite program beside the key, and its stores were
 * strangers to it (found by an upgrade run). Refused: the URL, or the lost file, is the operator's.
 */
export function refuseKeyWithoutDatabase(dir: DataDir, url: string | undefined): void {
  if (url || readFolderRecord(dir.root).database !== undefined) return;
  if (existsSync(dir.keyFile) && !existsSync(dir.database)) {
    throw new SettingError(`${dir.root} holds a node key but no database: for a central on PostgreSQL, set PUNCHCARD_DATABASE_URL (or --database) to its database; if its punchcard.db was lost, restore it from a backup.`);
  }
}

/**
 * Brings the folder's database to this version, unless a node of an older version runs on it: a
 * command of a newer release would change its schema under it (found by an upgrade run: `key`
 * migrated a running older store's database, whose later writes missed the new columns).
 */
export async function migrateUnlessOlderNodeRuns(db: Kysely<DB>, dir: DataDir): Promise<void> {
  const pid = runningNodeOf(dir);
  if (pid !== null) {
    const pending = await pendingMigrations(db);
    if (pending.length > 0) {
      throw new SettingError(`a Punchcard node of an older version (process ${pid}) runs on ${dir.root}: stop it and start this version there first (its database needs ${pending.length} change${pending.length === 1 ? '' : 's'} this version makes).`);
    }
  }
  await migrateToLatest(db);
}

/** openNodeEngine for a one-shot command (init, owner, key, token, stores, pair-code), its node key checked before the database is opened for it. */
export async function openFolderEngine(options: NodeEngineOptions): Promise<Engine> {
  await checkFolderNodeKey(options);
  return openNodeEngine(options);
}

/**
 * --host of a serving command, tried before anything is made: a name that does not resolve
 * (ENOTFOUND) or an address this machine does not have (EADDRNOTAVAIL) was a stack trace.
 */
export async function checkHost(host: string): Promise<void> {
  const problem = await tryListening(host, 0);
  if (problem === null) return;
  if (problem.code === 'EADDRNOTAVAIL') throw new SettingError(hostProblem(host, 'this machine has no such address'));
  if (problem.code === 'ENOTFOUND' || problem.code === 'EAI_AGAIN' || problem.code === 'EAI_NONAME' || problem.code === 'EAI_FAIL') throw new SettingError(hostProblem(host, 'no such host name or address'));
  // Anything else (EACCES…) is the start's to report, on the port it was given.
}

/**
 * --port of a serving command, tried before anything is made: a taken one stopped the node only
 * once it listened, after its database and node.key were made in the folder and its log had begun.
 * (Another program may still take it in between: the start then says the same.)
 */
export async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const problem = await tryListening(host, port);
  if (problem?.code === 'EADDRINUSE') throw new SettingError(portProblem(port, host));
}

function tryListening(host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error) => resolve(error));
    server.listen(port, host, () => server.close(() => resolve(null)));
  });
}

export const portProblem = (port: number | string, host: string) => `port ${port} on ${host} is in use: stop what holds it, or choose another with --port.`;

export const hostProblem = (host: string, what: string) =>
  `--host ${host}: ${what}: listen on one of this machine's addresses (127.0.0.1 for this machine only, 0.0.0.0 for every interface, or one of its network addresses).`;

/** --data of the commands that read their database only from PUNCHCARD_DATABASE_URL (init, owner, key, token, stores). */
export const DATA_FOLDER_HELP = 'data folder of the node (its SQLite file; for a central on PostgreSQL, set PUNCHCARD_DATABASE_URL to its database)';
