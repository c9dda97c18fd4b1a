import { type Kysely, sql } from 'kysely';
import type { DB } from '../../storage/schema';

/**
 * Central's change log keeps, for each row, its first change and its newest: a version in between
 * can go, because every store that has not read it yet will read the newer one (it has a higher
 * seq), and stores apply rows, not steps. The first stays so a row still arrives before the rows
 * that point at it (a customer before their check-ins), in the order its writes committed. So a
 * new store's first sync replays the chain's rows, not their whole history of visits and closes;
 * the log's head always stays. Only central compacts: a store's own log holds its unsent events.
 * Returns how many changes were removed.
 */
export async function compactChangeLog(db: Kysely<DB>): Promise<number> {
  const result = await sql`
    delete from sync_changes
    where seq < (select max(other.seq) from sync_changes other where other.tbl = sync_changes.tbl and other.row_id = sync_changes.row_id)
      and seq > (select min(other.seq) from sync_changes other where other.tbl = sync_changes.tbl and other.row_id = sync_changes.row_id)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
