import { existsSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { openDatabaseUrl } from '../../../core/storage/database';
import { getMeta, setMeta } from '../../../core/storage/node-meta';
import type { DB } from '../../../core/storage/schema';
import { readPairing } from '../../sync/pairing-file';
import { dataDirAt } from '../data-dir';
import { SettingError } from '../setting-error';
import { DEMO_OWNER_EMAIL } from './demo-owner';

/** The demo's mark in its own folder (node_meta): the program it seeded. */
const DEMO_MARK = 'demo_vendor_id';
/** The demo's program (seedDemoData); a demo folder made before the mark holds one program of this name. */
export const DEMO_PROGRAM_NAME = 'Demo Coffee';

/** Marks the folder's program as the demo's, when the demo seeds it. */
export async function markDemoProgram(db: Kysely<DB>, vendorId: number): Promise<void> {
  await setMeta(db, DEMO_MARK, String(vendorId));
}

/**
 * `punchcard demo` runs only on a folder of its own: on a real program's folder it made
 * owner@example.com an owner of that program (with a sign-in link printed), replaced its screen
 * keys and listed demo customers it does not have (found by a newcomer's run of the README). A
 * folder with no program, or with the one the demo seeded, is the demo's; a demo folder made before
 * the mark (one program named "Demo Coffee") gets the mark; anything else is refused before the
 * node starts. Run after the folder's database is migrated (checkFolderNodeKey).
 */
export async function checkDemoFolder(dataDir: string): Promise<void> {
  const dir = dataDirAt(dataDir);
  const elsewhere = `the demo runs on a folder of its own (--data, default .data/demo); run this one with \`punchcard store --data ${dir.root}\``;
  if (readPairing(dir)) throw new SettingError(`${dir.root} is a chain's store (paired with a central), not a demo folder: ${elsewhere}.`);
  if (!existsSync(dir.database)) return;
  const database = openDatabaseUrl(dir.database);
  try {
    const vendors = await database.db.selectFrom('vendors').select(['id', 'name']).orderBy('id').execute();
    if (vendors.length === 0) return;
    const marked = await getMeta(database.db, DEMO_MARK);
    if (marked !== null && vendors.length === 1 && String(vendors[0]!.id) === marked) return;
    if (marked === null && vendors.length === 1 && vendors[0]!.name === DEMO_PROGRAM_NAME) {
      await markDemoProgram(database.db, vendors[0]!.id);
      return;
    }
    const names = vendors.map((vendor) => vendor.name).join(', ');
    throw new SettingError(`${dir.root} holds a program that is not the demo (${names}): the demo would make ${DEMO_OWNER_EMAIL} its owner and replace its screen keys; ${elsewhere}.`);
  } finally {
    await database.close();
  }
}
