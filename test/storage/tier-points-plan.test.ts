import { describe, expect, it } from 'vitest';
import { tierPointsQuery } from '../../src/core/orders/tier-points';
import { nodeForPlans } from '../support/query-plan';

// The points toward a tier are read on every earning order and for every member the hourly demotion
// looks at: the member's one account in the program's tier currency (the unique index on holder and
// currency, the currency named by the vendor's row, found by its key), then that account's entries.
const node = nodeForPlans('punchcard-tier-points-plan-');
const { planOf } = node;

describe('tier points read one account of the member', () => {
  it('finds the account by (holder, tier currency), the currency by the vendor’s primary key', async () => {
    const plan = await planOf(tierPointsQuery(node.engine().db, { vendorId: 1, userId: 2 }, 30, Date.now()));
    expect(plan).toMatch(/^SEARCH a USING (COVERING )?INDEX \w+ \(holder_type=\? AND holder_id=\? AND currency_id=\?\)/);
    expect(plan).toMatch(/SEARCH tv USING (COVERING )?INDEX \w+ \(id=\?\)/);
    expect(plan).not.toMatch(/SCAN (a|e|ledger_accounts|ledger_entries)\b/);
  });
});
