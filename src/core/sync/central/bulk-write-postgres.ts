import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { DB } from '../../storage/schema';
import { chunks, listIn, quoted } from './bulk-lists';

// Central's bulk writes on PostgreSQL (apply-batch.ts): rows travel as one JSON parameter typed by
// the table's own row type. PostgreSQL parses and plans a statement of thousands of parameters far
// slower than it reads the same rows from JSON.

export async function insertRowsPostgres(trx: Kysely<DB>, table: string, rows: Record<string, unknown>[]): Promise<void> {
  const shapes = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) listIn(shapes, Object.keys(row).sort().join(',')).push(row);
  for (const [shape, group] of shapes) {
    const list = shape.split(',').map(quoted).join(', ');
    for (const chunk of chunks(group, 5_000)) {
      await trx.executeQuery(CompiledQuery.raw(`insert into ${quoted(table)} (${list}) select ${list} from jsonb_populate_recordset(null::${quoted(table)}, $1::jsonb)`, [JSON.stringify(chunk)]));
    }
  }
}

/** Sets `columns` of rows central has to the given values: one statement per chunk. */
export async function updateRowsPostgres(trx: Kysely<DB>, table: string, columns: readonly string[], rows: Record<string, unknown>[]): Promise<void> {
  const set = sql.join(columns.map((c) => sql`${sql.ref(c)} = v.${sql.ref(c)}`));
  for (const chunk of chunks(rows, 5_000)) {
    const json = JSON.stringify(chunk.map((r) => Object.fromEntries(['id', ...columns].map((c) => [c, r[c]]))));
    await sql`update ${sql.table(table)} set ${set} from jsonb_populate_recordset(null::${sql.table(table)}, ${json}::jsonb) as v where ${sql.table(table)}.id = v.id`.execute(trx);
  }
}

/** Every account's summed move, one statement per chunk. */
export async function moveBalancesPostgres(trx: Kysely<DB>, moves: Map<number, number>, now: number): Promise<void> {
  for (const chunk of chunks([...moves.entries()], 5_000)) {
    const values = sql.join(chunk.map(([id, delta]) => sql`(${id}::bigint, ${delta}::bigint)`));
    await sql`update ledger_accounts set balance = ledger_accounts.balance + v.delta, updated_at = ${now} from (values ${values}) as v(id, delta) where ledger_accounts.id = v.id`.execute(trx);
  }
}
