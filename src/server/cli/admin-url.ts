import type { Engine } from '../../core/engine';
import { getMeta } from '../../core/storage/node-meta';
import { dataDirAt } from '../node/data-dir';
import { readFolderRecord } from '../node/folder-record';
import { CENTRAL_PORT, STORE_PORT } from './default-ports';

/** The back office's sign-in link for a one-time token (init --owner, owner). */
export const signInLink = (adminUrl: string, token: string) => `${adminUrl}#/sign-in-link?token=${token}`;

/**
 * Where the back office of the folder's node is reached: --admin-url, else the default port of the
 * node that serves the folder — a central's (4320) when the folder records that `punchcard central`
 * ran on it or that its database is on PostgreSQL (a chain's central, as the README sets one up;
 * `init --owner` runs before central's first start), or its database carries central's change
 * capture (a folder older than that record).
 */
export async function adminUrlOf(flag: string | undefined, engine: Engine, dataDir: string): Promise<string> {
  if (flag) return flag;
  const record = readFolderRecord(dataDirAt(dataDir).root);
  const central = record.role === 'central' || record.database === 'postgresql' || (await getMeta(engine.db, 'sync_capture')) === 'central';
  return `http://127.0.0.1:${central ? CENTRAL_PORT : STORE_PORT}/admin`;
}
