import { existsSync, renameSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { openDatabaseUrl } from '../../../core/storage/database';
import { getMeta, setMeta } from '../../../core/storage/node-meta';
import type { DB } from '../../../core/storage/schema';
import { readPairing } from '../../sync/pairing-file';
import { dataDirAt, refuseWhileNodeRuns } from '../data-dir';
import { SettingError } from '../setting-error';
import { DEMO_OWNER_EMAIL } from './demo-owner';

/** The demo's mark in its own folder (node_meta): the program it seeded. */
const DEMO_MARK = 'demo_vendor_id';
/** The demo's program (seedDemoData); a demo folder made before the mark holds one program of this name. */
export const DEMO_PROGRAM_NAME = 'Demo Coffee';

/**
 * Written before the demo's first run creates anything and removed with the mark once its data is
 * complete: a folder that still holds it was stopped mid-seed (Ctrl+C during the first run), one
 * customer of fifty, and later starts said "Demo data reused from the first run" (found by a
 * newcomer's run of the README).
 */
const DEMO_SEEDING = 'demo_seeding';

/** Notes in the folder that the demo's first run is creating its data (removed by markDemoProgram). */
export async function startDemoSeed(db: Kysely<DB>): Promise<void> {
  await setMeta(db, DEMO_SEEDING, new Date().toISOString());
}

/** Marks the folder's program as the demo's, when the demo seeds it: its data is complete. */
export async function markDemoProgram(db: Kysely<DB>, vendorId: number): Promise<void> {
  await setMeta(db, DEMO_MARK, String(vendorId));
  await db.deleteFrom('node_meta').where('key', '=', DEMO_SEEDING).execute();
}

/**
 * A folder whose demo was stopped before its data was complete (it still holds the seed's note):
 * its database (and -wal, -shm) is set aside as punchcard.db.interrupted-<time>, kept, so the node
 * starts empty and creates the demo afresh; returns the line that says so, else undefined. Refused
 * while a node runs on the folder (a demo still creating its data). `punchcard demo` and the desktop
 * app's first run (nativeBinding: better-sqlite3 for Electron) call it before the node opens the folder.
 */
export async function setAsideInterruptedDemo(dataDir: string, options: { nativeBinding?: string | undefined } = {}): Promise<string | undefined> {
  const dir = dataDirAt(dataDir);
  if (!existsSync(dir.database)) return undefined;
  const database = openDatabaseUrl(dir.database, { nativeBinding: options.nativeBinding });
  let seeding: string | null;
  try {
    // A database from before node_meta has no such note.
    seeding = await getMeta(database.db, DEMO_SEEDING).catch(() => null);
  } finally {
    await database.close();
  }
  if (seeding === null) return undefined;
  refuseWhileNodeRuns(dir);
  const aside = `${dir.database}.interrupted-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(dir.database + suffix)) renameSync(dir.database + suffix, aside + suffix);
  }
  return `the demo's first run on ${dir.root} was stopped before its data was complete: creating it again (the incomplete database is set aside as ${aside}).`;
}

/**
 * `punchcard demo` runs only on a folder of its own: on a real program's folder it made
 * owner@example.com an owner of that program (with a sign-in link printed), replaced its screen
 * keys and listed demo customers it does not have (found by a newcomer's run of the README). A
 * folder with no program, or with the one the demo seeded, is the demo's; a demo folder made before
 * the mark (one program named "Demo Coffee") gets the mark; anything else is refused before the
 * node starts. A demo folder whose first run was stopped mid-seed is set aside and started afresh
 * (setAsideInterruptedDemo; the returned line says so). Run after the folder's database is migrated
 * (checkFolderNodeKey).
 */
export async function checkDemoFolder(dataDir: string): Promise<string | undefined> {
  const dir = dataDirAt(dataDir);
  const elsewhere = `the demo runs on a folder of its own (--data, default .data/demo); run this one with \`punchcard store --data ${dir.root}\``;
  if (readPairing(dir)) throw new SettingError(`${dir.root} is a chain's store (paired with a central), not a demo folder: ${elsewhere}.`);
  const restarted = await setAsideInterruptedDemo(dataDir);
  if (restarted !== undefined || !existsSync(dir.database)) return restarted;
  const database = openDatabaseUrl(dir.database);
  try {
    const vendors = await database.db.selectFrom('vendors').select(['id', 'name']).orderBy('id').execute();
    if (vendors.length === 0) return undefined;
    const marked = await getMeta(database.db, DEMO_MARK);
    if (marked !== null && vendors.length === 1 && String(vendors[0]!.id) === marked) return undefined;
    if (marked === null && vendors.length === 1 && vendors[0]!.name === DEMO_PROGRAM_NAME) {
      await markDemoProgram(database.db, vendors[0]!.id);
      return undefined;
    }
    const names = vendors.map((vendor) => vendor.name).join(', ');
    throw new SettingError(`${dir.root} holds a program that is not the demo (${names}): the demo would make ${DEMO_OWNER_EMAIL} its owner and replace its screen keys; ${elsewhere}.`);
  } finally {
    await database.close();
  }
}
