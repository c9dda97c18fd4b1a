import { type CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { formerMembersOf } from '../../src/core/sync/central/former-members';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { queryPlan } from '../support/query-plan';
import { closedAfterEach, startCentralOn } from './support/chain';

// Who of a page left the program (sync/central/former-members.ts) is asked for every pull and
// snapshot page. Ids are node number × 2^32 + sequence, so a page of customers made at several
// nodes spans billions of ids: a lookup by the page's id range read every left membership and every
// merged copy of the vendor (a 1,000-id page, 20,000 of each among 200,000 customers: 40 ms on
// SQLite, 73 ms on PostgreSQL; 3 and 10 ms looked up by id). Each query must look the page's ids
// up one by one, on both databases.

const keep = closedAfterEach();

const SPAN = 2 ** 32;
const CUSTOMERS = 30_000;

describe.each(BACKENDS)('former members of a page spanning several nodes ($name)', (backend) => {
  it('each query looks the page’s ids up (never an id range, never a scan), and finds the same customers', async () => {
    const central = await startCentralOn(backend, new ManualClock(), keep);
    const { db, dialect } = central.engine;
    const vendorId = central.vendor.vendorId;
    // Customer i: node i % 3 + 1, sequence i / 3 + 1. Every 10th left the program; every 10th from
    // the 3rd is a copy merged into the one made before it at its node (who left).
    const series = dialect === 'sqlite' ? sql`with recursive s(i) as (select 0 union all select i + 1 from s where i + 1 < ${sql.lit(CUSTOMERS)})` : sql`with s(i) as (select generate_series(0, ${sql.lit(CUSTOMERS)} - 1))`;
    const id = sql`(i % 3 + 1) * ${sql.lit(SPAN)} + 1 + i / 3`;
    await sql`${series} insert into users (id, first_name, last_name, first_vendor_id, status, failed_logins, created_at, updated_at)
      select ${id}, 'F', 'L', ${vendorId}, 'active', 0, 0, 0 from s`.execute(db);
    await sql`${series} update users set merged_into = id - 1 where id in (select ${id} from s where i % 10 = 3)`.execute(db);
    await sql`${series} insert into user_vendors (id, user_id, vendor_id, contact_consent, tier_since, reload_amount, reload_threshold, flagged, referral_code, newsletters, push_endpoints, created_at, updated_at, removed_at)
      select 9 * ${sql.lit(SPAN)} + i, ${id}, ${vendorId}, 0, 0, 0, 0, 0, 'FM' || i, '[]', '[]', 0, 0, case when i % 10 = 0 then 1 end from s`.execute(db);
    // PostgreSQL plans with statistics (autovacuum keeps them); SQLite nodes never ANALYZE.
    if (dialect === 'postgres') await sql`analyze`.execute(db);

    const queries: CompiledQuery[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => (queries.push(db.getExecutor().compileQuery(node, queryId)), node),
      transformResult: async ({ result }) => result,
    };
    // Every 2,500th customer with 3 after it at their node: 48 ids across the three nodes, where the
    // vendor has 3,000 left memberships and 3,000 merged copies. (With a few hundred, PostgreSQL
    // rightly reads them all in one go rather than look 48 ids up: its statistics choose.)
    const page = Array.from({ length: 12 }, (_, k) => [0, 3, 6, 9].map((d) => k * 2_500 + d)).flat();
    const idOf = (i: number) => (i % 3 + 1) * SPAN + 1 + Math.floor(i / 3);
    const former = await formerMembersOf(db.withPlugin(recorder), vendorId, page.map(idOf));
    // Left: i % 10 = 0; merged into one who left: i % 10 = 3 (its survivor is i - 3).
    expect([...former].sort()).toEqual(page.filter((i) => i % 10 === 0 || i % 10 === 3).map(idOf).sort());

    expect(queries.length).toBeGreaterThanOrEqual(3);
    for (const query of queries) {
      if (dialect === 'sqlite') {
        const steps = (await queryPlan(db, query)).split(' | ').filter((step) => /^(SCAN|SEARCH) /.test(step));
        for (const step of steps) expect(step, query.sql).toMatch(/^SEARCH \S+ USING (COVERING )?INDEX \S+ \((\w+=\? AND )*\w+=\?\)$/);
      } else {
        const [row] = (await db.executeQuery<{ 'QUERY PLAN': unknown }>({ ...query, sql: `explain (format json) ${query.sql}` })).rows;
        const scans: Array<Record<string, string>> = [];
        const walk = (plan: Record<string, unknown>) => {
          if (plan['Relation Name'] === 'users' || plan['Relation Name'] === 'user_vendors') scans.push(plan as Record<string, string>);
          for (const child of (plan.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
        };
        walk((row!['QUERY PLAN'] as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
        for (const scan of scans) {
          expect(scan['Node Type'], query.sql).toMatch(/^Index (Only )?Scan$/);
          expect(scan['Index Cond'], query.sql).toMatch(/id = /);
          expect(scan['Index Cond'], query.sql).not.toMatch(/[<>]/);
        }
      }
    }
  });
});
