import type { Kysely } from 'kysely';
import { SEQUENCE_SPAN } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import { REPLICATED_TABLES } from '../replicated-tables';

/** The tables a store writes rows of its own range into (and pushes). */
const PUSHED_TABLES = REPLICATED_TABLES.filter((t) => t.push).map((t) => t.name);

/**
 * The highest id of a node's range (node × 2^32 …) central holds in any table a store pushes; null
 * when none. A store restored from a backup moves the rows it made since above it (their ids are
 * those of the sales its lost copy pushed). One indexed read per table.
 */
export async function highestIdOfNode(trx: Kysely<DB>, nodeId: number): Promise<number | null> {
  let highest: number | null = null;
  for (const table of PUSHED_TABLES) {
    const top = await trx
      .selectFrom(table as 'orders')
      .select((eb) => eb.fn.max('id').as('top'))
      .where('id', '>=', nodeId * SEQUENCE_SPAN)
      .where('id', '<', (nodeId + 1) * SEQUENCE_SPAN)
      .executeTakeFirst();
    if (top?.top != null) highest = Math.max(highest ?? 0, Number(top.top));
  }
  return highest;
}
