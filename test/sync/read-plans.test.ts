import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesQuery } from '../../src/core/sync/central/read-changes';
import { SNAPSHOT_TABLES, snapshotPageQuery } from '../../src/core/sync/central/read-snapshot';
import { REPLICATED_TABLES } from '../../src/core/sync/replicated-tables';
import { ManualClock } from '../support/clock';
import { queryPlan } from '../support/query-plan';
import { type CentralHandle, startCentral } from './support/chain';

// How central reads its rows and its log for stores, on SQLite: along an index in the order the
// reply needs, never every row of a vendor or of the log and a sort. Plans that read all showed up
// only at scale (1M customers): 143 ms a snapshot page, 105 ms a pull with nothing new.

let central: CentralHandle;
beforeAll(async () => {
  central = await startCentral(new ManualClock());
});
afterAll(() => central.close());

const planOf = (compiled: CompiledQuery) => queryPlan(central.engine.db, compiled);

describe('central reads at scale (SQLite plans)', () => {
  it('a page of a table that grows with the customers is a range of an index in id order, never a sort of all the vendor’s rows', async () => {
    // Memberships through the index on vendor_id alone: every member found and sorted for each
    // page (14 s of a first sync at 1M). A vendor's own settings (stores, rules, currencies, …)
    // are a page or two: sorting them is nothing.
    const growing = ['users', 'user_vendors', 'user_sessions', 'barcode_tokens', 'user_cards', 'ledger_entries', 'pos_sessions', 'orders', 'transactions'];
    expect(growing.every((name) => SNAPSHOT_TABLES.includes(name))).toBe(true);
    for (const table of REPLICATED_TABLES.filter((t) => growing.includes(t.name))) {
      for (const format of ['objects', 'columns'] as const) {
        const { query } = await snapshotPageQuery(central.engine.db, 'sqlite', central.vendor.vendorId, table, { after: 5, limit: 10 }, format);
        const details = await planOf(query.compile(central.engine.db));
        expect(details, `${table.name} (${format})`).toMatch(/^SEARCH r USING (COVERING )?INDEX \S+ \((vendor_id=\? AND )?id>\?\)/);
        expect(details, `${table.name} (${format})`).not.toContain('TEMP B-TREE');
      }
    }
  });

  it('a pull reads the log from the cursor in seq order, each entry checked, never every customer change of the log and a sort', async () => {
    const details = await planOf(changesQuery(central.engine.db, central.vendor.vendorId, 5, 1_000).compile());
    expect(details).toMatch(/^SEARCH c USING INTEGER PRIMARY KEY \(rowid>\?\)/);
    expect(details).not.toContain('TEMP B-TREE');
    expect(details).not.toContain('MULTI-INDEX OR');
  });
});
