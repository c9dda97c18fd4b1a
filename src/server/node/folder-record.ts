import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataDir } from './data-dir';

/**
 * What a data folder records about the node that serves it (DIR/node.json): whether it is a
 * chain's central, and where its database is. A PostgreSQL central's folder holds no database of
 * its own, so without this a command run there without PUNCHCARD_DATABASE_URL could not tell it
 * from an empty folder (it made an empty SQLite file and said to run `init`).
 */
export interface FolderRecord {
  role?: 'central';
  database?: 'sqlite' | 'postgresql';
  /** The identity of its PostgreSQL database (node_meta `database_id`; folder-database.ts). */
  database_id?: string;
}

export const folderRecordFile = (root: string) => join(root, 'node.json');

export function readFolderRecord(root: string): FolderRecord {
  const file = folderRecordFile(root);
  if (!existsSync(file)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as FolderRecord) : {};
  } catch {
    return {};
  }
}

/** Adds `facts` to the folder's record (the others stay). */
export function recordFolder(dir: DataDir, facts: FolderRecord): void {
  const file = folderRecordFile(dir.root);
  writeFileSync(file, `${JSON.stringify({ ...readFolderRecord(dir.root), ...facts })}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The database kind of a URL (or of the folder's SQLite file when none is given). */
export const databaseKindOf = (url: string | undefined): 'sqlite' | 'postgresql' => (url !== undefined && /^postgres(ql)?:\/\//.test(url) ? 'postgresql' : 'sqlite');
