import { type Kysely, sql } from 'kysely';
import type { DB } from '../../storage/schema';
import { REPLICATED_TABLES } from '../replicated-tables';

/**
 * Each snapshot table's vendor rows, as a first page's `counts` (their sum is its `estimate`):
 * customers are counted by their memberships, so a count of 0 means the page filter finds no row
 * (read-snapshot.ts's vendorFilter: a customer is sent for a membership, their own or their
 * survivor's). Read after the log head the page answers with (the snapshot's cursor), never
 * before: a table counted empty got any row it has at the end by a commit after the count, so
 * after the cursor, and the log brings it (docs/sync.md, "Tables empty at the cursor").
 */
export async function countSnapshot(db: Kysely<DB>, vendorId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of REPLICATED_TABLES.filter((t) => t.pull)) {
    const counted = table.vendorColumn === null ? 'user_vendors' : table.name;
    const column = table.vendorColumn === 'id' ? 'id' : 'vendor_id';
    const row = await sql<{ n: number }>`select count(*) as n from ${sql.table(counted)} where ${sql.ref(column)} = ${vendorId}`.execute(db);
    counts[table.name] = Number(row.rows[0]?.n ?? 0);
  }
  return counts;
}
