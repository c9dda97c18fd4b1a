import { describe, expect, it } from 'vitest';
import { checkInsByDayQuery, egiftsSoldByDayQuery } from '../../src/core/dashboard/dashboard';
import { movedSinceQuery, ordersQuery, storedValueQuery } from '../../src/core/dashboard/period-statement';
import { daysBetween } from '../../src/core/dashboard/time-zone-days';
import { nodeForPlans } from '../support/query-plan';

// The period statement reads its days through the (vendor_id, created_at) indexes, bounded on both
// sides, and an order's store by the order's key: never the program's whole history, nor every order.

const node = nodeForPlans('punchcard-period-plans-');
const { planOf } = node;

describe('a month’s statement reads its month', () => {
  // November 2026 in Quito.
  const window = daysBetween('America/Guayaquil', Date.UTC(2026, 10, 1) / 86_400_000, Date.UTC(2026, 10, 30) / 86_400_000);
  const end = window.bounds.at(-1)!;

  it('check-ins and orders: a range of (vendor_id, created_at) with both ends, for the program and for one store', async () => {
    for (const onlyStore of [null, 7]) {
      expect(await planOf(checkInsByDayQuery(node.engine(), 1, onlyStore, window, end))).toMatch(/^SEARCH pos_sessions USING INDEX pos_sessions_vendor_time \(vendor_id=\? AND created_at>\? AND created_at<\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
      expect(await planOf(ordersQuery(node.engine(), 1, onlyStore, window, end))).toMatch(/^SEARCH orders USING INDEX orders_vendor_time \(vendor_id=\? AND created_at>\? AND created_at<\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
    }
  });

  it('stored value: the month’s ledger entries, matched against the quick-pay accounts read once from their index, each one’s order and pay-back by their keys; what moved since, a range too', async () => {
    // Not each entry's account row (nineteenth round: 100 s for what moved since a month last spring
    // on a year-old central, 9 s with the accounts' list from migration 0048).
    const accounts = 'LIST SUBQUERY 1 \\| SEARCH ledger_accounts USING COVERING INDEX ledger_accounts_by_currency \\(currency_id=\\? AND vendor_id=\\?\\) \\| CREATE BLOOM FILTER';
    expect(await planOf(storedValueQuery(node.engine(), 1, 2, window, end))).toMatch(
      new RegExp(
        `^SEARCH e USING INDEX ledger_entries_vendor_time \\(vendor_id=\\? AND created_at>\\? AND created_at<\\?\\) \\| ${accounts} \\| SEARCH o USING INDEX sqlite_autoindex_orders_1 \\(id=\\?\\) LEFT-JOIN \\| SEARCH p USING INDEX sqlite_autoindex_stored_value_paybacks_1 \\(id=\\?\\) LEFT-JOIN \\| USE TEMP B-TREE FOR GROUP BY$`,
      ),
    );
    expect(await planOf(movedSinceQuery(node.engine(), 1, 2, end))).toMatch(new RegExp(`^SEARCH e USING INDEX ledger_entries_vendor_time \\(vendor_id=\\? AND created_at>\\?\\) \\| ${accounts}$`));
  });

  it('eGifts sold: the gifts by (status, updated_at), each one’s charge by its key', async () => {
    expect(await planOf(egiftsSoldByDayQuery(node.engine(), 1, 2, window, end))).toMatch(/^SEARCH g USING INDEX egifts_status \(status=\? AND updated_at>\?\) \| SEARCH c USING INDEX sqlite_autoindex_payment_charges_1 \(id=\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
  });
});
