import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';

// A customer's app push tokens (user_vendors.push_endpoints) stay at central: they now travel as
// the empty value (`masked` in sync/replicated-tables.ts). What earlier versions copied goes once:
// - every version of a membership in this node's change log: central's keeps each row's first
//   version for ever and gave it to every store pairing later; a store's holds its unsent changes;
// - a paired store's copies of the memberships, with capture quiet (the triggers of the version
//   that ran before are still installed, and this is nobody's news).
// The migrator runs pending migrations in one transaction, so capture cannot stay quiet.
const NONE = '{"gcm":[],"apns":[]}';

export const pushEndpointsAtCentral: Migration = {
  async up(db: Kysely<unknown>) {
    if (dialectOf(db) === 'postgres') {
      await sql`update sync_changes set data = (data::jsonb || jsonb_build_object('push_endpoints', ${NONE}::text))::text
                where tbl = 'user_vendors' and (data::jsonb ->> 'push_endpoints') is distinct from ${NONE}`.execute(db);
    } else {
      await sql`update sync_changes set data = json_set(data, '$.push_endpoints', ${NONE})
                where tbl = 'user_vendors' and json_extract(data, '$.push_endpoints') is not ${NONE}`.execute(db);
    }
    const role = await sql<{ value: string }>`select value from node_meta where key = 'sync_capture'`.execute(db);
    if (role.rows[0]?.value !== 'store') return;
    await sql`update sync_apply_mode set active = 1`.execute(db);
    await sql`update user_vendors set push_endpoints = ${NONE} where push_endpoints <> ${NONE}`.execute(db);
    await sql`update sync_apply_mode set active = 0`.execute(db);
  },
};
