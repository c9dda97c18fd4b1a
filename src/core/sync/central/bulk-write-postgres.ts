import { CompiledQuery, type Kysely, sql } from 'kysely';
import { mapPerDatabase } from '../../storage/per-database';
import type { DB } from '../../storage/schema';
import { pgColumnTypes, pgInsertLogging } from '../capture/install-capture';
import { chunks, hasKeys, listIn, quoted } from '../bulk-lists';
import { checkForeignKeys, keyedInsertOf, withRowTriggersOff } from './bulk-keys-postgres';

// Central's bulk writes on PostgreSQL (apply-batch.ts): rows travel as one JSON parameter. PostgreSQL
// parses and plans a statement of thousands of parameters far slower than it reads the same rows
// from JSON.

export async function insertRowsPostgres(trx: Kysely<DB>, table: string, rows: Record<string, unknown>[]): Promise<void> {
  const shapes = new Map<string, Record<string, unknown>[]>();
  // Rows built alike share a shape: only a row whose keys differ from the previous one's is keyed again.
  let previous: string[] = [];
  let group: Record<string, unknown>[] = [];
  for (const row of rows) {
    if (!hasKeys(row, previous)) {
      previous = Object.keys(row);
      group = listIn(shapes, [...previous].sort().join(','));
    }
    group.push(row);
  }
  const types = shapes.size > 0 ? await scalarTypesOf(trx, table) : null;
  const logging = shapes.size > 0 ? await loggingOf(trx, table) : null;
  for (const [shape, list] of shapes) {
    const columns = shape.split(',');
    const names = columns.map(quoted).join(', ');
    const casts = types && columns.every((c) => types.has(c)) ? columns.map((c, i) => `(e->>${i})::${types.get(c)!}`).join(', ') : null;
    for (const chunk of chunks(list, 5_000)) {
      if (casts) {
        // Each row as an array of its values: a third less JSON to send and parse than objects,
        // whose keys PostgreSQL would also sort and look up row by row. `->>` gives a value's text as
        // jsonb_populate_recordset takes it, and the cast is that type's input, so rows come out alike.
        const json = JSON.stringify(chunk.map((row) => columns.map((c) => row[c])));
        const insert = `insert into ${quoted(table)} (${names}) select ${casts} from jsonb_array_elements($1::jsonb) e`;
        if (logging) {
          // The change log's entries written by the same statement, not by the capture trigger (see
          // pgInsertLogging): the guard is evaluated first, the trigger at the statement's end.
          const text = (guard: string, onlyIfLogged: boolean) => `with guard as materialized (select ${guard}),
            inserted as (${insert} cross join guard ${onlyIfLogged ? `where guard.${logging.logs}` : ''} returning *)
            insert into sync_changes (tbl, row_id, op, vendor_id, data)
            ${logging.select} from inserted r cross join guard where guard.${logging.logs} order by r.id`;
          const known = await keyedInsertOf(trx, table);
          // A key column the rows lack would take its default, which the check would not see.
          const keyed = known?.keys.every((key) => columns.includes(key.column)) ? known : null;
          let logged = 0n;
          if (keyed) {
            // Row triggers off, the capture trigger with them: rows go in only if the guard logs them.
            await withRowTriggersOff(trx, logging, async () => {
              logged = (await trx.executeQuery(CompiledQuery.raw(text(logging.guardWhen(keyed.also), true), [json]))).numAffectedRows ?? 0n;
            });
            if (logged > 0n) await checkForeignKeys(trx, table, keyed.keys, chunk);
          }
          if (logged === 0n) await trx.executeQuery(CompiledQuery.raw(text(logging.guard, false), [json]));
        } else {
          await trx.executeQuery(CompiledQuery.raw(insert, [json]));
        }
      } else {
        await trx.executeQuery(CompiledQuery.raw(`insert into ${quoted(table)} (${names}) select ${names} from jsonb_populate_recordset(null::${quoted(table)}, $1::jsonb)`, [JSON.stringify(chunk)]));
      }
    }
  }
}

const loggingCache = mapPerDatabase<string, Awaited<ReturnType<typeof pgInsertLogging>>>();

/** The statement parts that log a table's inserted rows (null: the trigger logs them), once per database. */
async function loggingOf(trx: Kysely<DB>, table: string): Promise<Awaited<ReturnType<typeof pgInsertLogging>>> {
  const tables = loggingCache(trx.getExecutor().adapter);
  if (!tables.has(table)) tables.set(table, await pgInsertLogging(trx, table));
  return tables.get(table)!;
}

const typeCache = mapPerDatabase<string, Map<string, string> | null>();

/**
 * The type of each column of `table`, when all are plain scalars (numbers, strings, booleans: their
 * JSON text is their input); null otherwise, and rows then go in through jsonb_populate_recordset.
 * The typmod is left to the insert's assignment cast, as jsonb_populate_recordset leaves it to input.
 */
async function scalarTypesOf(trx: Kysely<DB>, table: string): Promise<Map<string, string> | null> {
  const tables = typeCache(trx.getExecutor().adapter);
  if (tables.has(table)) return tables.get(table)!;
  const columns = await pgColumnTypes(trx, table);
  const types = columns.every((r) => ['N', 'S', 'B'].includes(r.category)) ? new Map(columns.map((r) => [r.name, r.type])) : null;
  tables.set(table, types);
  return types;
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
