import { describe, expect, it } from 'vitest';
import { cardPageQuery } from '../../src/core/cards/card-store';
import { changedAccountsQuery, expiredEarningsQuery } from '../../src/core/expiry/expire-points';
import { dueMembersQuery } from '../../src/core/rules/tiers/demote-tiers';
import { firstNameWalkQuery, fullNameQuery, lastNameWalkQuery, nameSearchQuery } from '../../src/core/customer-care/name-search';
import { checkInsByDayQuery, dayOf, egiftsSoldByDayQuery, ordersByDayQuery, storedValueByDayQuery, unclaimedEgiftsQuery } from '../../src/core/dashboard/dashboard';
import { loyaltyMovesByDayQuery } from '../../src/core/dashboard/loyalty-moves';
import { lastDays } from '../../src/core/dashboard/time-zone-days';
import { creditsExpiringAfterQuery, reversedEntriesQuery } from '../../src/core/balances/balance-store';
import { openSessionOfUserQuery } from '../../src/core/onscreen/pos-session';
import { staleSessionsQuery } from '../../src/core/onscreen/close-stale-sessions';
import { withConstantsInline } from '../../src/core/storage/prepared';
import { egiftsOfPersonQuery, promotionAwardsOfPersonQuery } from '../../src/core/personal-data/personal-data-document';
import { nodeForPlans } from '../support/query-plan';

// Queries that read a range of an index, not every row of a table: the hourly jobs find what is
// due (they read every membership and ledger entry: 170 ms and 120 ms at 1M customers, each hour,
// holding SQLite), and the back office's name search finds its candidates. What the jobs do with
// what they found is tested in test/api/tiers-demotion.test.ts and test/core/expire-points.test.ts;
// the dashboard's figures in test/api/backoffice-dashboard.test.ts.

const node = nodeForPlans('punchcard-query-plans-');
const { planOf } = node;

describe('hourly jobs read only what is due', () => {
  it('tier demotion: the members of a tier who reached it a window ago, a range of (tier_id, tier_since)', async () => {
    expect(await planOf(dueMembersQuery(node.engine().db, 1, Date.now()))).toMatch(/^SEARCH user_vendors USING INDEX user_vendors_tier_since \(tier_id=\? AND tier_since<\?\)$/);
  });

  it('points expiry: earned points whose expiry passed (since the last run), a range of the index of expiring entries', async () => {
    expect(await planOf(expiredEarningsQuery(node.engine().db, Date.now()))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_expiring \(expires_at<\?\)$/);
    expect(await planOf(expiredEarningsQuery(node.engine().db, Date.now(), Date.now() - 3_600_000))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_expiring \(expires_at>\? AND expires_at<\?\)$/);
  });

  it('points expiry: accounts changed since the last run, a range of the index on updated_at', async () => {
    expect(await planOf(changedAccountsQuery(node.engine().db, Date.now(), Date.now() - 3_600_000))).toMatch(/^SEARCH a USING INDEX ledger_accounts_updated \(updated_at>\?\) \| SEARCH e EXISTS USING INDEX ledger_entries_account_expiring \(account_id=\? AND expires_at<\?\)$/);
  });
});

describe('check-in finds the customer’s open session in the program by an index', () => {
  it('one entry of the partial unique index on (user_id, vendor_id) where status = active (migration 0029)', async () => {
    // As the prepared query runs on SQLite: 'active' written into the text, so the partial index applies.
    expect(await planOf(openSessionOfUserQuery(withConstantsInline(node.engine().db), 1, 2))).toMatch(/^SEARCH pos_sessions USING INDEX pos_sessions_open_user_vendor \(user_id=\? AND vendor_id=\?\)$/);
  });
});

describe('the back office’s name search finds candidates through the name indexes', () => {
  it('reads the folded first and last names’ ranges, not every member of the program (SQLite)', async () => {
    // Through the memberships' vendor index it read every member: 0.5 s at 1M customers for a prefix nobody has.
    for (const onlyStore of [null, 7]) {
      const plan = await planOf(nameSearchQuery({ engine: node.engine(), vendorId: 1, onlyStoreId: onlyStore, start: 'zam', limit: 25 }));
      expect(plan).toMatch(/^MULTI-INDEX OR \| INDEX 1 \| SEARCH u USING INDEX users_(first|last)_name_folded \(<expr>>\? AND <expr><\?\) \| INDEX 2 \| SEARCH u USING INDEX users_(first|last)_name_folded /);
      expect(plan).toMatch(/SEARCH m USING (COVERING )?INDEX user_vendors_user_\w+ \(user_id=\?/);
      expect(plan).not.toContain('user_vendors_vendor');
    }
  });

  it('finds a full name through the name indexes, every alternative a range, never a scan of the customers (SQLite)', async () => {
    const search = { engine: node.engine(), vendorId: 1, onlyStoreId: null, start: 'jose ibanez', limit: 25, words: ['jose', 'ibanez'] };
    const plan = await planOf(fullNameQuery(search));
    expect(plan).toContain('MULTI-INDEX OR');
    expect(plan).toMatch(/INDEX users_first_name_folded \(<expr>>\? AND <expr><\?\)/);
    expect(plan).toMatch(/INDEX users_last_name_folded \(<expr>>\? AND <expr><\?\)/);
    expect(plan).not.toMatch(/SCAN u\b/);
    expect(plan).not.toContain('user_vendors_vendor');
  });

  it('walks a common name along the last-name index in the page’s order, stopping at its end (SQLite)', async () => {
    // Reading every match of a first letter and sorting them took 1–8 s at 1M customers (name-search.ts).
    for (const onlyStoreId of [null, 7]) {
      const search = { engine: node.engine(), vendorId: 1, onlyStoreId, start: 'a', limit: 25 };
      const lastNames = await planOf(lastNameWalkQuery(search));
      expect(lastNames).toMatch(/^SEARCH u USING INDEX users_last_name_folded \(<expr>>\? AND <expr><\?\) \| /);
      expect(lastNames).toMatch(/ \| USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY$/);
      const firstNames = await planOf(firstNameWalkQuery(search));
      expect(firstNames).toMatch(/^SCAN u USING INDEX users_last_name_folded \| /);
      expect(firstNames).toMatch(/ \| USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY$/);
      for (const plan of [lastNames, firstNames]) expect(plan).not.toContain('user_vendors_vendor');
    }
  });
});

describe('check-ins left open for hours', () => {
  it('are read through the index of open sessions, never the whole history of check-ins', async () => {
    expect(await planOf(staleSessionsQuery(node.engine().db, Date.now()))).toMatch(/^SCAN pos_sessions USING INDEX pos_sessions_open_user_vendor$/);
  });
});

describe('the dashboard reads its 30 days, not the program’s history', () => {
  // Without an index leading with the time it read every order, check-in and quick-pay entry ever
  // made: 2.0 s on a year-old central (2M orders and check-ins, 1M members), 0.8 s with these.
  const window = lastDays('UTC', Date.now(), 30);

  it('check-ins and orders: a range of (vendor_id, created_at), for the program and for one store', async () => {
    for (const onlyStore of [null, 7]) {
      expect(await planOf(checkInsByDayQuery(node.engine(), 1, onlyStore, window))).toMatch(/^SEARCH pos_sessions USING INDEX pos_sessions_vendor_time \(vendor_id=\? AND created_at>\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
      expect(await planOf(ordersByDayQuery(node.engine(), 1, onlyStore, window))).toMatch(/^SEARCH orders USING INDEX orders_vendor_time \(vendor_id=\? AND created_at>\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
    }
  });

  it('points per loyalty currency: the window’s orders, each one’s ledger entries by the reference index, each entry’s account by its key', async () => {
    for (const onlyStore of [null, 7]) {
      const query = loyaltyMovesByDayQuery(node.engine(), 1, onlyStore, { from: window.from, day: dayOf('o.created_at', window) });
      // The orders outer: from the constant reference_type it walked every order's entries ever made.
      expect(await planOf(query)).toMatch(
        /^SEARCH o USING INDEX orders_vendor_time \(vendor_id=\? AND created_at>\?\) \| SEARCH e USING INDEX ledger_entries_reference \(reference_type=\? AND reference_id=\?\) \| SEARCH a USING INDEX sqlite_autoindex_ledger_accounts_1 \(id=\?\) \| USE TEMP B-TREE FOR GROUP BY$/,
      );
    }
  });

  it('stored value moved: the window’s ledger entries, matched against the quick-pay accounts read once from their index (never each entry’s account row)', async () => {
    // Each entry's account by its key read an account row per entry: 6.5–8.8 s for 30 days of a
    // year-old central (nineteenth round); the list from (currency_id, vendor_id, id), 1.0–1.6 s.
    expect(await planOf(storedValueByDayQuery(node.engine(), 1, 2, window))).toMatch(
      /^SEARCH e USING INDEX ledger_entries_vendor_time \(vendor_id=\? AND created_at>\?\) \| LIST SUBQUERY 1 \| SEARCH ledger_accounts USING COVERING INDEX ledger_accounts_by_currency \(currency_id=\? AND vendor_id=\?\) \| CREATE BLOOM FILTER \| USE TEMP B-TREE FOR GROUP BY$/,
    );
  });

  it('eGifts sold and not claimed: the open gifts and the window’s gifts by (status, updated_at), each one’s charge by its key (never every charge)', async () => {
    expect(await planOf(unclaimedEgiftsQuery(node.engine(), 1, 2))).toMatch(/^SEARCH g USING INDEX egifts_status \(status=\?\) \| SEARCH c USING INDEX sqlite_autoindex_payment_charges_1 \(id=\?\)$/);
    expect(await planOf(egiftsSoldByDayQuery(node.engine(), 1, 2, window))).toMatch(/^SEARCH g USING INDEX egifts_status \(status=\? AND updated_at>\?\) \| SEARCH c USING INDEX sqlite_autoindex_payment_charges_1 \(id=\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
  });
});

describe('a customer’s upcoming expirations read their own accounts’ entries', () => {
  it('credits still to expire and reversals: only those entries of the account, not every entry it ever had', async () => {
    // Every retrieve at the counter and every balance call asks, per account the customer holds: a
    // regular's hundreds of earn entries were read twice on each retrieve.
    expect(await planOf(creditsExpiringAfterQuery(node.engine().db, 1, Date.now()))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_account_expiring \(account_id=\? AND expires_at>\?\)$/);
    expect(await planOf(reversedEntriesQuery(node.engine().db, 1))).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_account_reversals \(account_id=\?\)$/);
  });
});

describe('ending a customer’s sessions deletes their app barcodes by an index', () => {
  it('a password change, reset, deactivation or erasure reads that customer’s barcodes only (migration 0033), not every one ever drawn', async () => {
    expect(await planOf(node.engine().db.deleteFrom('barcode_tokens').where('user_id', '=', 42))).toMatch(/^SEARCH barcode_tokens USING (COVERING )?INDEX barcode_tokens_user \(user_id=\?\)$/);
  });
});

describe('a page of cards is sorted once', () => {
  it('the page’s rowids sorted in a co-routine that drives the outer loop, each row read by its rowid (SQLite)', async () => {
    // The aggregate meets the rows in the order the co-routine yields them: no ORDER BY of its own
    // (a second sort of whole rows cost as much as the first), so the co-routine must stay outermost.
    for (const sortColumn of ['created_at', 'number_key']) {
      const query = cardPageQuery(withConstantsInline(node.engine().db), { prefix: true, status: false, sortColumn, direction: 'desc' }, 1, 'C0', 'C1', 26, 0);
      const plan = await planOf(query);
      expect(plan).toMatch(/^CO-ROUTINE p \| SEARCH cards USING INDEX cards_vendor_number \(vendor_id=\? AND number_key>\? AND number_key<\?\) \| (USE TEMP B-TREE FOR ORDER BY \| )?SCAN p \| SEARCH c USING INTEGER PRIMARY KEY \(rowid=\?\)$/);
    }
  });
});

describe('a copy of a person’s data reads their own rows (migration 0046)', () => {
  it('eGifts they bought or claimed, promotions awarded to them: by the person’s indexes, not every program’s rows', async () => {
    expect(await planOf(egiftsOfPersonQuery(node.engine().db, 1, 2))).toMatch(/^MULTI-INDEX OR \| INDEX 1 \| SEARCH egifts USING INDEX egifts_buyer \(buyer_user_id=\?\) \| INDEX 2 \| SEARCH egifts USING INDEX egifts_claimed_by \(claimed_by_user_id=\?\) \| USE TEMP B-TREE FOR ORDER BY$/);
    expect(await planOf(promotionAwardsOfPersonQuery(node.engine().db, 1, 2))).toMatch(/^SEARCH w USING INDEX promotion_awards_by_user \(user_id=\?\) \| SEARCH p USING INDEX sqlite_autoindex_promotions_1 \(id=\?\) \| USE TEMP B-TREE FOR ORDER BY$/);
  });
});
