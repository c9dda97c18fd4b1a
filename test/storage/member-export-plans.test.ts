import { describe, expect, it } from 'vitest';
import { creditsExpiringAfterOfAccountsQuery, reversedEntriesOfAccountsQuery } from '../../src/core/member-export/expiry-days';
import { nodeForPlans } from '../support/query-plan';

// Twentieth round: each page of the members export reads the days its members' points expire, one
// query for the page's accounts: through the accounts' own entries, never every lot of the node
// still to expire (the index on expires_at alone) once per page.

const node = nodeForPlans('punchcard-member-export-plans-');
const { planOf } = node;

describe('the members export reads a page’s expiring points by its accounts', () => {
  it('their credits still to expire, and the entries their reversals name, by the accounts’ indexes', async () => {
    expect(await planOf(creditsExpiringAfterOfAccountsQuery(node.engine().db, [1, 2, 3], Date.now()))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_account_expiring \(account_id=\? AND expires_at>\?\)$/);
    expect(await planOf(reversedEntriesOfAccountsQuery(node.engine().db, [1, 2, 3]))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_account_reversals \(account_id=\?\)$/);
  });
});
