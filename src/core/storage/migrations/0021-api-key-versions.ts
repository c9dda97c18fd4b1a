import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

/** What authentication reads of a key (credentials/authenticate.ts), last_used_at aside. */
const AUTH_COLUMNS = ['id', 'vendor_id', 'store_id', 'pos_id', 'role', 'key_hash', 'error_mode', 'workstation_identifier', 'revoked_at'];

// Issue 13: api keys are kept in memory like the program's data, checked against the same
// vendor_versions row (migration 0017), which writes to a key now move too — whoever writes: a
// revocation in the back office, a pulled sync change, the CLI. "Last used" (written once a minute
// per key) is left out: it would reload the vendor's program data for nothing. A key never moves to
// another vendor (no code changes its vendor_id), so the new row's vendor is the one to move.
export const apiKeyVersions: Migration = {
  async up(db: Kysely<unknown>) {
    if (dialectOf(db) === 'postgres') {
      // bump_vendor_version() is migration 0017's.
      await sql
        .raw(`create trigger vendor_version after insert or delete or update of ${AUTH_COLUMNS.join(', ')} on api_keys for each row execute function bump_vendor_version('vendor_id')`)
        .execute(db);
      return;
    }
    for (const [op, row] of [['insert', 'new'], [`update of ${AUTH_COLUMNS.join(', ')}`, 'new'], ['delete', 'old']] as const) {
      await sql
        .raw(
          `create trigger vendor_version_api_keys_${op.split(' ')[0]} after ${op} on api_keys begin
             insert into vendor_versions (vendor_id, version) values (${row}.vendor_id, abs(random()) % 9007199254740991)
               on conflict (vendor_id) do update set version = excluded.version;
           end`,
        )
        .execute(db);
    }
  },
};
