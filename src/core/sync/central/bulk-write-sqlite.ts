import { type Kysely, sql } from 'kysely';
import { writeConnectionOf } from '../../storage/raw-writer';
import type { DB } from '../../storage/schema';
import { sqliteLogOfInsertedRows } from '../capture/install-capture';
import { chunks, quoted, sameList } from '../bulk-lists';

// Central's bulk writes on SQLite (apply-batch.ts). Rows are inserted by one statement per table
// and chunk that reads them from one JSON parameter (an array of value arrays), run synchronously
// on the write connection, with the capture triggers paused: the change log gets the same entries
// from one INSERT … SELECT per table afterwards.
//
// One statement, not one per row: a bulk run is applied inside a savepoint (apply-push.ts), and
// SQLite keeps a savepoint's journal in memory (temp_store = MEMORY) and walks it at every
// statement's end; per-row statements made an order with its transaction cost ~110 µs at 1,000
// events a page, one statement ~20 µs (docs/decisions.md, Speed).

export async function insertRowsSqlite(trx: Kysely<DB>, root: Kysely<DB>, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const raw = writeConnectionOf(root);
  const log = await sqliteLogOfInsertedRows(trx, table);
  const paused = log !== null && (await sql<{ active: number }>`select active from sync_apply_mode`.execute(trx)).rows[0]?.active === 0;
  if (paused) raw.run('update sync_apply_mode set active = 1', []);
  try {
    // Rows of one node share their columns: consecutive rows alike go in together, in their order.
    for (const { columns, list } of runsOfSameColumns(rows)) {
      const names = columns.map(quoted).join(', ');
      // `->>` gives each JSON value as the SQL value it was bound as before (numbers, text, null).
      const text = `insert into ${quoted(table)} (${names}) select ${columns.map((_, i) => `value ->> ${i}`).join(', ')} from json_each(?)`;
      for (const chunk of chunks(list, 5_000)) raw.run(text, [JSON.stringify(chunk.map((row) => columns.map((c) => row[c] ?? null)))]);
    }
  } finally {
    if (paused) raw.run('update sync_apply_mode set active = 0', []);
  }
  if (paused) raw.run(log, [JSON.stringify(rows.map((row) => row['id']))]);
}

/** Consecutive rows with the same keys in the same order, as runs (the rows keep their order). */
function runsOfSameColumns(rows: Record<string, unknown>[]): Array<{ columns: string[]; list: Record<string, unknown>[] }> {
  const runs: Array<{ columns: string[]; list: Record<string, unknown>[] }> = [];
  for (const row of rows) {
    const keys = Object.keys(row);
    const last = runs.at(-1);
    if (last && sameList(keys, last.columns)) last.list.push(row);
    else runs.push({ columns: keys, list: [row] });
  }
  return runs;
}

/** Sets `columns` of rows central has to the given values: one statement per chunk. */
export async function updateRowsSqlite(trx: Kysely<DB>, table: string, columns: readonly string[], rows: Record<string, unknown>[]): Promise<void> {
  const set = sql.join(columns.map((c) => sql`${sql.ref(c)} = v.${sql.ref(c)}`));
  const all = ['id', ...columns];
  for (const chunk of chunks(rows, Math.floor(30_000 / all.length))) {
    const values = sql.join(chunk.map((r) => sql`(${sql.join(all.map((c) => r[c]))})`));
    const source = sql`(select ${sql.join(all.map((c, i) => sql`${sql.ref(`column${i + 1}`)} as ${sql.ref(c)}`))} from (values ${values}))`;
    await sql`update ${sql.table(table)} set ${set} from ${source} as v where ${sql.table(table)}.id = v.id`.execute(trx);
  }
}

/** Every account's summed move, one statement per chunk. */
export async function moveBalancesSqlite(trx: Kysely<DB>, moves: Map<number, number>, now: number): Promise<void> {
  for (const chunk of chunks([...moves.entries()], 5_000)) {
    const values = sql.join(chunk.map(([id, delta]) => sql`(${id}, ${delta})`));
    await sql`update ledger_accounts set balance = ledger_accounts.balance + v.delta, updated_at = ${now} from (select column1 as id, column2 as delta from (values ${values})) as v where ledger_accounts.id = v.id`.execute(trx);
  }
}
