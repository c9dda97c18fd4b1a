import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { getMeta } from '../../core/storage/node-meta';
import type { DB } from '../../core/storage/schema';
import { ServiceError } from '../../shared/errors';
import type { DataDir } from './data-dir';
import { readFolderRecord, recordFolder } from './folder-record';
import { SettingError } from './setting-error';

/**
 * A PostgreSQL central's folder holds no database of its own: the URL it is given each time
 * (PUNCHCARD_DATABASE_URL, --database) could name any database, and a typo named an empty one that
 * `key` and `stores` then filled with a schema and `central` served. So the database carries an
 * identity (node_meta `database_id`, random, made once) that the folder records (DIR/node.json),
 * and every command checks it before migrating or writing anything. By content, not by URL: a
 * database moved to another host, or restored from pg_dump under another name, is still the folder's.
 */
const DATABASE_ID = 'database_id';

/** The database's identity, read without migrating: `program` false for a database with no Punchcard tables. */
async function readDatabaseIdentity(db: Kysely<DB>): Promise<{ program: boolean; id: string | null }> {
  try {
    return { program: true, id: await getMeta(db, DATABASE_ID) };
  } catch (error) {
    if (isMissingTable(error)) return { program: false, id: null };
    throw error;
  }
}

// PostgreSQL's undefined_table; SQLite's words.
const isMissingTable = (error: unknown) => (error as { code?: unknown }).code === '42P01' || /no such table/.test(String((error as Error).message));

/** A database URL as it may be printed: no password, no query (which may carry one). */
export function printableUrl(url: string): string {
  if (!URL.canParse(url)) return 'the URL given';
  const parsed = new URL(url);
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

/**
 * Refuses a database that is not the folder's, before anything is written to it: the folder records
 * an identity the database does not carry, or the folder was set up on PostgreSQL (an older folder,
 * recorded before identities) and the database holds no Punchcard program. A command that needs a
 * program (`existing`) on a database with none is refused too, rather than migrating an empty database.
 */
export async function checkFolderDatabase(db: Kysely<DB>, dir: DataDir, given: { url: string; from: string; existing: boolean }): Promise<void> {
  const record = readFolderRecord(dir.root);
  const found = await readDatabaseIdentity(db);
  const named = `${given.from} (${printableUrl(given.url)})`;
  if (record.database_id !== undefined && found.id !== record.database_id) {
    const what = !found.program ? 'it holds no Punchcard program' : found.id === null ? 'it holds a Punchcard program of no recorded identity' : `it is another Punchcard database (${found.id})`;
    throw new SettingError(`${named} is not the database of ${dir.root}, which records database ${record.database_id} (node.json): ${what}. Set ${given.from} to the folder's database. Nothing was changed.`);
  }
  if (found.program) return;
  if (record.database === 'postgresql') {
    throw new SettingError(`${named} holds no Punchcard program, while ${dir.root} was set up on a PostgreSQL database: set ${given.from} to the folder's database. Nothing was changed.`);
  }
  if (given.existing) throw new ServiceError('vendor_not_found', `${named} holds no program yet: run \`punchcard init\` first, or set ${given.from} to the program's database. Nothing was changed.`);
}

/**
 * Records the identity of a migrated PostgreSQL database in the folder (made in the database the
 * first time): `init` and `central`. Answers whether an older folder, set up on PostgreSQL before
 * identities were recorded, got its identity now (the command says so).
 */
export async function recordFolderDatabase(db: Kysely<DB>, dir: DataDir): Promise<{ id: string; recordedNow: boolean }> {
  await db
    .insertInto('node_meta')
    .values({ key: DATABASE_ID, value: randomUUID() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const id = (await getMeta(db, DATABASE_ID))!;
  const before = readFolderRecord(dir.root);
  if (before.database_id === id && before.database === 'postgresql') return { id, recordedNow: false };
  recordFolder(dir, { database: 'postgresql', database_id: id });
  return { id, recordedNow: before.database === 'postgresql' && before.database_id === undefined };
}
