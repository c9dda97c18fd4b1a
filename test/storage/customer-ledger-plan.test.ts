import { describe, expect, it } from 'vitest';
import { customerLedgerQuery } from '../../src/core/customer-care/customer-ledger';
import { nodeForPlans } from '../support/query-plan';

// The back office's customer page reads the customer's latest ledger entries with each one's order
// (receipt) and store in one query: the entries through the customer's accounts, and the order and
// store of each by primary key — never a scan of the orders or the stores (millions of orders at central).

const node = nodeForPlans('punchcard-customer-ledger-plan-');

describe('a customer’s ledger in the back office', () => {
  it('reads the accounts by holder, their entries by account, each entry’s order and store by key (SQLite)', async () => {
    const plan = await node.planOf(customerLedgerQuery(node.engine().db, 1, 2));
    expect(plan).toMatch(
      /^SEARCH a USING INDEX sqlite_autoindex_ledger_accounts_2 \(holder_type=\? AND holder_id=\?\) \| SEARCH c USING INDEX sqlite_autoindex_currencies_1 \(id=\?\) \| SEARCH e USING INDEX ledger_entries_account \(account_id=\?\) \| SEARCH o USING INDEX sqlite_autoindex_orders_1 \(id=\?\) LEFT-JOIN \| SEARCH s USING INDEX sqlite_autoindex_stores_1 \(id=\?\) LEFT-JOIN \| USE TEMP B-TREE FOR ORDER BY$/,
    );
  });
});
