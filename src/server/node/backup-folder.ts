import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pairingFile } from '../sync/pairing-file';
import { dataDirAt } from './data-dir';
import { folderRecordFile, readFolderRecord } from './folder-record';
import { SettingError } from './setting-error';

export interface FolderBackup {
  folder: string;
  /** The files copied, by name: the database, and the key, pairing and record that go with it. */
  files: string[];
  bytes: number;
  /** The key is PUNCHCARD_NODE_KEY's, not a file: it must be kept with the backup by hand. */
  keyFromEnvironment: boolean;
}

/**
 * Backs a node's data folder up into a new folder that is itself a data folder, ready to start a
 * node on: a consistent copy of the SQLite database taken while the node runs (one read
 * transaction, `VACUUM INTO`: copying the file and its WAL by hand can catch a page mid-write), its
 * integrity checked, and the files the data needs (node.key seals its PINs and secrets, central.json
 * pairs a store, node.json records a central). A PostgreSQL central's data is PostgreSQL's to back up.
 */
export function backUpFolder(dataFolder: string, destination: string, env: NodeJS.ProcessEnv = process.env): FolderBackup {
  const dir = dataDirAt(dataFolder);
  const to = resolve(destination);
  if (readFolderRecord(dir.root).database === 'postgresql') {
    throw new SettingError(
      `${dir.root} is a central on PostgreSQL: back its database up with PostgreSQL's tools (pg_dump -Fc "$PUNCHCARD_DATABASE_URL" > central.dump), and keep ${dir.keyFile} and ${folderRecordFile(dir.root)} with it.`,
    );
  }
  if (!existsSync(dir.database)) throw new SettingError(`${dir.root} holds no Punchcard database (punchcard.db): nothing to back up.`);
  if (existsSync(to) && readdirSync(to).length > 0) throw new SettingError(`${to} is not empty: back up into a new folder.`);
  mkdirSync(to, { recursive: true, mode: 0o700 });
  chmodSync(to, 0o700);
  const copy = join(to, basename(dir.database));
  try {
    const source = new BetterSqlite3(dir.database, { readonly: true, fileMustExist: true });
    try {
      source.pragma('busy_timeout = 10000');
      source.prepare('vacuum into ?').run(copy);
    } finally {
      source.close();
    }
    chmodSync(copy, 0o600);
    const check = new BetterSqlite3(copy, { readonly: true });
    try {
      const verdict = check.pragma('quick_check', { simple: true });
      if (verdict !== 'ok') throw new SettingError(`the copy of ${dir.database} failed its integrity check (${String(verdict)}): the database itself may be damaged; nothing was kept.`);
    } finally {
      check.close();
    }
    const files = [basename(copy)];
    for (const file of [dir.keyFile, pairingFile(dir), folderRecordFile(dir.root)]) {
      if (!existsSync(file)) continue;
      copyFileSync(file, join(to, basename(file)));
      chmodSync(join(to, basename(file)), 0o600);
      files.push(basename(file));
    }
    const bytes = files.reduce((sum, file) => sum + statSync(join(to, file)).size, 0);
    return { folder: to, files, bytes, keyFromEnvironment: !existsSync(dir.keyFile) && env.PUNCHCARD_NODE_KEY !== undefined };
  } catch (error) {
    rmSync(to, { recursive: true, force: true });
    throw error;
  }
}
