import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

/** The program data the engine keeps in memory (src/core/program-cache), with the column naming the vendor. */
export const PROGRAM_TABLES = [
  ['vendors', 'id'],
  ['stores', 'vendor_id'],
  ['points_of_sale', 'vendor_id'],
  ['currencies', 'vendor_id'],
  ['earning_rules', 'vendor_id'],
  ['spending_rules', 'vendor_id'],
  ['tiers', 'vendor_id'],
] as const;

// Issue 13 (speed).
// - pos_sessions by customer: the open-session lookup of check-in and order, and the customer's last
//   visit, were scans (the partial index on status = 'active' cannot serve a bound parameter).
// - vendor_versions: one row per vendor, set to a new random value by a trigger on every write to the
//   program's data (whoever writes: a use case, a pulled sync change, the CLI, another process on the
//   same PostgreSQL). Each process's cache compares it per request (one primary-key read) and reloads
//   the vendor's data when it moved. Random, not +1: a value from a rolled-back write is never reused.
export const speed: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('pos_sessions_user_vendor').on('pos_sessions').columns(['user_id', 'vendor_id', 'created_at']).execute();
    await db.schema
      .createTable('vendor_versions')
      .addColumn('vendor_id', 'bigint', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    if (dialectOf(db) === 'postgres') {
      await sql`
        create or replace function bump_vendor_version() returns trigger language plpgsql as $$
        declare v bigint;
        begin
          if tg_op = 'DELETE' then v := (to_jsonb(old) ->> tg_argv[0])::bigint; else v := (to_jsonb(new) ->> tg_argv[0])::bigint; end if;
          insert into vendor_versions (vendor_id, version) values (v, floor(random() * 9007199254740991)::bigint)
            on conflict (vendor_id) do update set version = excluded.version;
          return null;
        end $$`.execute(db);
      for (const [table, column] of PROGRAM_TABLES) {
        await sql.raw(`create trigger vendor_version after insert or update or delete on ${table} for each row execute function bump_vendor_version('${column}')`).execute(db);
      }
      return;
    }
    for (const [table, column] of PROGRAM_TABLES) {
      for (const [op, row] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']] as const) {
        await sql
          .raw(
            `create trigger vendor_version_${table}_${op} after ${op} on ${table} begin
               insert into vendor_versions (vendor_id, version) values (${row}.${column}, abs(random()) % 9007199254740991)
                 on conflict (vendor_id) do update set version = excluded.version;
             end`,
          )
          .execute(db);
      }
    }
  },
};
