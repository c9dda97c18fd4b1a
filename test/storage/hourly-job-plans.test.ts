import { randomBytes } from 'node:crypto';
import type { Compilable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { changedAccountsQuery, expiredEarningsQuery } from '../../src/core/expiry/expire-points';
import { dueMembersQuery } from '../../src/core/rules/tiers/demote-tiers';
import { openSqlite } from '../../src/core/storage/database';
import { queryPlan } from '../support/query-plan';
import { makeTempDir } from '../support/temp-dir';

// The hourly jobs find what is due through an index, not by reading every membership and every
// ledger entry (170 ms and 120 ms at 1M customers, each hour, holding SQLite). What they then do
// with what they found is tested in test/api/tiers-demotion.test.ts and test/core/expire-points.test.ts.

const dir = makeTempDir('punchcard-hourly-plans-');
let engine: Engine;
beforeAll(async () => {
  engine = await startEngine({ database: openSqlite(`${dir.path}/node.db`), nodeKey: randomBytes(32), role: 'store' });
});
afterAll(async () => {
  await engine.close();
  dir.remove();
});

const planOf = (query: Compilable<unknown>) => queryPlan(engine.db, query.compile());

describe('hourly jobs read only what is due', () => {
  it('tier demotion: the members of a tier who reached it a window ago, a range of (tier_id, tier_since)', async () => {
    expect(await planOf(dueMembersQuery(engine.db, 1, Date.now()))).toMatch(/^SEARCH user_vendors USING INDEX user_vendors_tier_since \(tier_id=\? AND tier_since<\?\)$/);
  });

  it('points expiry: earned points whose expiry passed (since the last run), a range of the index of expiring entries', async () => {
    expect(await planOf(expiredEarningsQuery(engine.db, Date.now()))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_expiring \(expires_at<\?\)$/);
    expect(await planOf(expiredEarningsQuery(engine.db, Date.now(), Date.now() - 3_600_000))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_expiring \(expires_at>\? AND expires_at<\?\)$/);
  });

  it('points expiry: accounts changed since the last run, a range of the index on updated_at', async () => {
    expect(await planOf(changedAccountsQuery(engine.db, Date.now(), Date.now() - 3_600_000))).toMatch(/^SEARCH a USING INDEX ledger_accounts_updated \(updated_at>\?\) \| SEARCH e EXISTS USING INDEX ledger_entries_account \(account_id=\?\)$/);
  });
});
