import { describe, expect, it } from 'vitest';
import { ETA_MIN_MS, ETA_MIN_ROWS, firstSyncEtaSeconds } from '../../src/core/sync/store/sync-client';

// The first sync's ETA (GET /sync/status first_sync.eta_seconds, the CLI's "about Ns left"): from
// this process's rate, once there is one to tell it from (docs/decisions.md, "Eleventh round: a
// tiny program's first sync").

describe('firstSyncEtaSeconds', () => {
  it('tells nothing for a small program, whatever its first rows’ rate', () => {
    // The reported case: 1 row of 9 after 1.25 s said "about 10s left".
    expect(firstSyncEtaSeconds({ elapsedMs: 1_250, rows: 1, remaining: 8, total: 9 })).toBeNull();
    // Slow as it may be, 9 rows are no rate.
    expect(firstSyncEtaSeconds({ elapsedMs: 12_000, rows: 5, remaining: 4, total: 9 })).toBeNull();
  });

  it('waits for seconds, thousands of rows and 1% of the snapshot', () => {
    expect(firstSyncEtaSeconds({ elapsedMs: ETA_MIN_MS - 1, rows: 500_000, remaining: 500_000, total: 1_000_000 })).toBeNull();
    expect(firstSyncEtaSeconds({ elapsedMs: 10_000, rows: ETA_MIN_ROWS - 1, remaining: 10, total: ETA_MIN_ROWS + 9 })).toBeNull();
    expect(firstSyncEtaSeconds({ elapsedMs: 10_000, rows: 9_999, remaining: 990_001, total: 1_000_000 })).toBeNull();
  });

  it('then tells the rows left at the rate so far', () => {
    // 200,000 rows in 2 s of 1,000,000: 800,000 left at 100 rows/ms.
    expect(firstSyncEtaSeconds({ elapsedMs: 2_000, rows: 200_000, remaining: 800_000, total: 1_000_000 })).toBe(8);
    expect(firstSyncEtaSeconds({ elapsedMs: 4_000, rows: ETA_MIN_ROWS, remaining: ETA_MIN_ROWS, total: 2 * ETA_MIN_ROWS })).toBe(4);
    // Past the estimate (central's count is an estimate): nothing left, not a negative time.
    expect(firstSyncEtaSeconds({ elapsedMs: 3_000, rows: 30_000, remaining: -5, total: 29_995 })).toBe(0);
  });
});
