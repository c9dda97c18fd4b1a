import type pg from 'pg';

/**
 * Resolves once `count` backends of this database wait on a lock, read through `observer` (a client
 * outside any transaction: pg_stat_activity is read once per transaction); fails after 10 s. The
 * race tests hold a lock from outside and release it once every request waits behind it.
 */
export async function waitForLockWaits(observer: pg.Client, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const waiting = await observer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
    if (waiting.rows[0].n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${count} connections did not wait for a lock within 10 s`);
}
