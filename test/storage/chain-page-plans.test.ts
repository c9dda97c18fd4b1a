import { describe, expect, it } from 'vitest';
import { mentionedMembersQuery } from '../../src/core/chain-health/exception-customers';
import { ordersNamedQuery } from '../../src/core/chain-health/exception-orders';
import { nodeForPlans } from '../support/query-plan';

// The chain page names the sales and customers its exceptions mention: a page's few rows by their
// keys. Through the program's indexes (orders by (vendor_id, created_at), memberships by vendor_id)
// they read every order and every member: 2.5 s and 0.5–1.4 s on a year-old central with 2M orders
// and 1M members (nineteenth round; docs/decisions.md).

const node = nodeForPlans('punchcard-chain-page-plans-');
const { planOf } = node;

describe('the chain page reads the rows its exceptions mention, by their keys', () => {
  it('the orders by their ids, each one’s membership by the customer’s index (never the program’s orders)', async () => {
    const plan = await planOf(ordersNamedQuery(node.engine(), 1, [11, 12, 13]));
    expect(plan).toMatch(/^SEARCH o USING INDEX sqlite_autoindex_orders_1 \(id=\?\) \| SEARCH m USING INDEX user_vendors_user_\w+ \(user_id=\? AND vendor_id=\?\) LEFT-JOIN$/);
  });

  it('the customers by their ids, each one’s membership (or its survivor’s) by the customer’s index (never the program’s members)', async () => {
    const plan = await planOf(mentionedMembersQuery(node.engine(), 1, [11, 12, 13]));
    expect(plan).toMatch(/^SEARCH u USING INDEX sqlite_autoindex_users_1 \(id=\?\) \| SEARCH m USING INDEX user_vendors_user_\w+ \(user_id=\?\)$/);
    expect(plan).not.toContain('user_vendors_vendor');
  });
});
