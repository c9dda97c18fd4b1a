import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

// The lowercased-name indexes (0018) on SQLite were built with its ASCII-only lower(); every
// connection now lowers every letter (database.ts, lowerEveryLetter), so an entry of a name with
// another letter (Ángela, Ñuñez) no longer matches what a search computes. Rebuilt only where such
// a name exists: an all-ASCII name lowers the same both ways. PostgreSQL's lower() already did.
export const namesLoweredInFull: Migration = {
  async up(db: Kysely<unknown>) {
    if (dialectOf(db) !== 'sqlite') return;
    const { rows } = await sql`select 1 from users where first_name glob '*[^ -~]*' or last_name glob '*[^ -~]*' limit 1`.execute(db);
    if (rows.length === 0) return;
    await sql`reindex users_first_name_lower`.execute(db);
    await sql`reindex users_last_name_lower`.execute(db);
  },
};
