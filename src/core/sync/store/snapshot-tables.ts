import { REPLICATED_TABLES } from '../replicated-tables';

/** The tables of a snapshot, in order: identifiers and balances (up to the ledger) before history. */
export const SNAPSHOT_TABLES: readonly string[] = REPLICATED_TABLES.filter((t) => t.pull).map((t) => t.name);

/**
 * The tables a first page's `counts` says are empty at the snapshot's cursor (docs/sync.md,
 * "Tables empty at the cursor"). Only a count of exactly 0 skips a table: a table central did not
 * count (a central of an earlier version: no counts at all; or a table it does not have) is asked.
 */
export function tablesCountedEmpty(counts: unknown): string[] {
  if (typeof counts !== 'object' || counts === null) return [];
  return SNAPSHOT_TABLES.filter((table) => (counts as Record<string, unknown>)[table] === 0);
}

/** The index of the next table to ask after `index`, past those counted empty; SNAPSHOT_TABLES.length when none is left. */
export function nextTableToAsk(index: number, empty: readonly string[] | undefined): number {
  let next = index + 1;
  while (next < SNAPSHOT_TABLES.length && empty?.includes(SNAPSHOT_TABLES[next]!)) next += 1;
  return next;
}
