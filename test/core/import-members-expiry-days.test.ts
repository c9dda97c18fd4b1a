import { afterEach, describe, expect, it, vi } from 'vitest';
import { daysBetween } from '../../src/core/dashboard/time-zone-days';
import { importMembers } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { readPointsExpiry } from '../../src/core/import/member-profile';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { openEngine, sqliteBackend, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// `points_expire_on` is read before the import's first batch yields, row after row: finding where
// a day ends in the program's zone (a bisection over Intl's formatToParts, ~17 calls a bound) for
// every row held the event loop for seconds on a large file (20,000 rows: 8.5 s against 0.4 s).
// Each distinct day's end is now found once. Counted, not timed: the calls into Intl (a spy that
// calls through) grow with the distinct days, not with the rows.

const ROWS = 3_000;
const DAY_MS = 86_400_000;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('reading points_expire_on in a large import', () => {
  async function intlCallsOfPreview(withDates: boolean): Promise<number> {
    const opened = await openEngine(sqliteBackend, new ManualClock(Date.UTC(2026, 10, 21, 12)));
    try {
      const base = testVendor('Cafe NY');
      const vendor = await setUpVendor(opened.engine, { ...base, store: { ...base.store, timeZone: 'America/New_York' } });
      const lines = ['email,points,points_expire_on'];
      // Nine distinct days over the file.
      for (let i = 0; i < ROWS; i++) lines.push(`m${i}@example.com,500,${withDates ? `2027-0${1 + (i % 9)}-1${i % 9}` : ''}`);
      const records = readMemberFile(lines.join('\n') + '\n').records;
      const formatToParts = vi.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
      const report = await importMembers(opened.engine, { vendorId: vendor.vendorId, fileName: 'm.csv', records, dryRun: true });
      const calls = formatToParts.mock.calls.length;
      formatToParts.mockRestore();
      expect(report.refused).toBe(0);
      return calls;
    } finally {
      await opened.close();
    }
  }

  it('finds each distinct day’s end once, not once a row', async () => {
    const without = await intlCallsOfPreview(false);
    const withDates = await intlCallsOfPreview(true);
    // One bisection (~17 calls) per distinct day, where it was two per row (~100,000 here).
    expect(withDates - without).toBeLessThanOrEqual(9 * 20);
  });

  it('still ends each day where the program’s zone ends it, zone by zone', () => {
    const now = Date.UTC(2026, 10, 21, 12);
    const day = Date.UTC(2027, 2, 14) / DAY_MS; // 2027-03-14: New York springs forward that morning
    for (const timeZone of ['America/New_York', 'Europe/Madrid', 'America/New_York', 'Pacific/Kiritimati']) {
      const read = readPointsExpiry('2027-03-14', { country: 'US', timeZone, now, points: 100 });
      expect(read, timeZone).toEqual({ ok: true, value: daysBetween(timeZone, day, day).bounds[1]! - 1 });
    }
    // A day that has ended there is still refused (the cache keeps the end, not the verdict).
    const ended = readPointsExpiry('2026-11-20', { country: 'US', timeZone: 'America/New_York', now, points: 100 });
    expect(ended).toMatchObject({ ok: false, reason: 'expiry_in_the_past' });
    expect(readPointsExpiry('2026-11-21', { country: 'US', timeZone: 'America/New_York', now, points: 100 })).toMatchObject({ ok: true });
  });
});
