import { sql } from 'kysely';
import { SNAPSHOT_TABLES } from '../../../src/core/sync/central/read-snapshot';
import type { CentralHandle } from './chain';

type Db = CentralHandle['engine']['db'];

/** The snapshot tables a node holds rows of (a central of one vendor: that vendor's); a store asks these, and skips those counted empty. */
export async function tablesWithRows(db: Db): Promise<string[]> {
  const found: string[] = [];
  for (const table of SNAPSHOT_TABLES) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
    if (Number(rows[0]!.n) > 0) found.push(table);
  }
  return found;
}

/** Every snapshot table's row ids, and every balance: what a store must hold as its central (of one vendor) does. */
export async function replicatedState(db: Db): Promise<Record<string, string[]>> {
  const state: Record<string, string[]> = {};
  for (const table of SNAPSHOT_TABLES) {
    const { rows } = await sql<{ id: number }>`select id from ${sql.table(table)} order by id`.execute(db);
    state[table] = rows.map((r) => String(r.id));
  }
  const accounts = await db.selectFrom('ledger_accounts').select(['holder_type', 'holder_id', 'currency_id', 'balance']).orderBy('holder_type').orderBy('holder_id').orderBy('currency_id').execute();
  state['balances'] = accounts.map((a) => `${a.holder_type}:${a.holder_id}:${a.currency_id}:${a.balance}`);
  return state;
}
