import { type Kysely, sql } from 'kysely';
import { writeConnectionOf } from '../../storage/raw-writer';
import type { DB } from '../../storage/schema';
import { sqliteLogOfInsertedRows } from '../capture/install-capture';
import { chunks, hasKeys, quoted, sqliteValue } from '../bulk-lists';

// Central's bulk writes on SQLite (apply-batch.ts). Rows are inserted by one prepared statement per
// row, run synchronously on the write connection, with the capture triggers paused: the change log
// gets the same entries from one INSERT … SELECT per table afterwards.
//
// One statement per row is the cheapest way into SQLite for these wide rows (an order with its
// stored reply: ~10 µs, against ~27 µs read from one JSON parameter with `->>`), but only while no
// savepoint is open: SQLite walks a savepoint's in-memory journal at the end of every statement, so
// per-row statements inside one cost in proportion to what it had written (docs/decisions.md,
// Speed). A bulk run therefore takes no savepoint (apply-push.ts): should the database refuse it,
// the whole push runs again with that run's events taken one by one.

export async function insertRowsSqlite(trx: Kysely<DB>, root: Kysely<DB>, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const raw = writeConnectionOf(root);
  const log = await sqliteLogOfInsertedRows(trx, table);
  const paused = log !== null && (await sql<{ active: number }>`select active from sync_apply_mode`.execute(trx)).rows[0]?.active === 0;
  if (paused) raw.run('update sync_apply_mode set active = 1', []);
  try {
    // Rows of one node share their columns: consecutive rows alike go in together, in their order.
    for (const { columns, list } of runsOfSameColumns(rows)) {
      const text = `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values (${columns.map(() => '?').join(', ')})`;
      const insert = raw.rowRunner(text, columns, sqliteValue);
      for (const row of list) insert(row);
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
    const last = runs.at(-1);
    if (last && hasKeys(row, last.columns)) last.list.push(row);
    else runs.push({ columns: Object.keys(row), list: [row] });
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
