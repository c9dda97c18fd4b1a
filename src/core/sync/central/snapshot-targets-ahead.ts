import { type RawBuilder, sql } from 'kysely';

// Snapshot pages go in id order, and an id is its node's number × 2^32 + a sequence, so a row that
// points at another row of its own table can come before it: a reversal written by a lower-numbered
// node (central voiding a store's sale, one node voiding another's) has a smaller id than the entry
// it reverses. Its page would then commit without the target and fail its foreign key every round,
// and it cannot be left out either: it was written before the snapshot's cursor, so the log never
// sends it again. So central sends, with such a page, the rows its rows point at from later pages
// (ahead of the page's own rows). Sending them is what an upsert makes safe: the store skips them
// as rows already here when their own page comes. Chosen over ordering the pages (one id cursor
// cannot walk targets first without a second cursor in the protocol) and over the store holding
// rows back (they would have to outlive the page's transaction to survive a crash).
//
// Checked in the schema: this is the only reference within a snapshot table. users.merged_into
// points at another customer but has no foreign key and nothing on a store reads it; every other
// reference points at a table the snapshot sends earlier (transactions.order_id at orders, ...).

/** Snapshot tables' columns that point at a row of the same table. */
export const SELF_REFERENCES: Readonly<Record<string, string>> = { ledger_entries: 'reverses_id' };

/**
 * Where (on alias `r`) the rows of `table` are that the page's rows, ids in (after, last] and
 * `own` (the vendor's filter on alias `e`), point at through `column` from after the page,
 * directly or through one another.
 */
export function targetsAheadOf(table: string, column: string, own: RawBuilder<unknown>, after: number, last: number): RawBuilder<unknown> {
  const t = sql.table(table);
  const ref = (alias: string) => sql.ref(`${alias}.${column}`);
  return sql`r.id in (with recursive ahead(id) as (
      select ${ref('e')} from ${t} e where ${own} and e.id > ${after} and e.id <= ${last} and ${ref('e')} > ${last}
      union
      select ${ref('n')} from ${t} n inner join ahead on n.id = ahead.id where ${ref('n')} > ${last}
    ) select id from ahead)`;
}
