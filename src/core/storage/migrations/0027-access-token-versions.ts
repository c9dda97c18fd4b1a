import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

// Issue 13: bearer tokens are kept in memory like api keys (migration 0021), checked against the
// vendor_versions row (migration 0017), which every write to a token now moves too: whoever writes
// (an exchange of client credentials, a revocation in SQL, another central process on the same
// PostgreSQL), the next call of every process reads the token again. A token never moves to another
// vendor (no code changes its vendor_id), so the new row's vendor is the one to move.
export const accessTokenVersions: Migration = {
  async up(db: Kysely<unknown>) {
    if (dialectOf(db) === 'postgres') {
      // bump_vendor_version() is migration 0017's.
      await sql.raw(`create trigger vendor_version after insert or update or delete on access_tokens for each row execute function bump_vendor_version('vendor_id')`).execute(db);
      return;
    }
    for (const [op, row] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']] as const) {
      await sql
        .raw(
          `create trigger vendor_version_access_tokens_${op} after ${op} on access_tokens begin
             insert into vendor_versions (vendor_id, version) values (${row}.vendor_id, abs(random()) % 9007199254740991)
               on conflict (vendor_id) do update set version = excluded.version;
           end`,
        )
        .execute(db);
    }
  },
};
