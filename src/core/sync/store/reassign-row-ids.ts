import { type Kysely, sql } from 'kysely';
import type { Engine } from '../../engine';
import { nextObjectIds, nodeOfId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import { chunks } from '../bulk-lists';
import { withCaptureQuiet } from '../capture/capture-quiet';
import { ID_REFERENCES, type IdReference, JSON_ID_REFERENCES } from './own-row-references';

// A store restored from a backup hands out again the ids of the rows its lost copy made after the
// backup and pushed: central holds those rows. The rows the store made since the restore take new
// ids, in its tables and in the events it has not sent, before those events go (docs/sync.md,
// "A store restored from a backup").

/** Old id → new id, by table. */
export type IdMoves = Map<string, Map<number, number>>;

/** The store's unsent changes from event `fromSeq` on (and any not sealed into an event yet). */
const changesFrom = (trx: Kysely<DB>, fromSeq: number) => trx.selectFrom('sync_changes').where((eb) => eb.or([eb('event_seq', '>=', fromSeq), eb('event_seq', 'is', null)]));

/**
 * The rows this node made (its log says 'insert': capture/install-capture.ts) in its events from
 * `fromSeq` on whose ids, of this node's range, are at or below `highestId`: central holds rows with
 * those ids. In id order, which is the order they were made in.
 */
export async function rowsMadeSince(trx: Kysely<DB>, engine: Engine, fromSeq: number, highestId: number): Promise<Array<{ table: string; id: number }>> {
  const made = await changesFrom(trx, fromSeq).select(['tbl', 'row_id']).distinct().where('op', '=', 'insert').execute();
  return made
    .map((row) => ({ table: row.tbl, id: Number(row.row_id) }))
    .filter((row) => nodeOfId(row.id) === engine.nodeId && row.id <= highestId)
    .sort((a, b) => a.id - b.id);
}

/** New ids for these rows from the node's counter (the caller moved it past central's), in the same order. */
export async function newIdsFor(trx: Kysely<DB>, engine: Engine, rows: Array<{ table: string; id: number }>): Promise<IdMoves> {
  const ids = await nextObjectIds(trx, engine.nodeId, rows.length);
  const moves: IdMoves = new Map();
  rows.forEach((row, i) => addMove(moves, row.table, row.id, ids[i]!));
  return moves;
}

/** Adds one row's move (`table`'s row `from` to `to`). */
export function addMove(moves: IdMoves, table: string, from: number, to: number): void {
  const ids = moves.get(table) ?? new Map<number, number>();
  ids.set(from, to);
  moves.set(table, ids);
}

/**
 * Moves rows to their new ids in one transaction (the caller's): the rows themselves, every column
 * that names them (own-row-references.ts), the ids inside stored replies, and the store's unsent
 * changes from event `fromSeq` on. Capture is quiet (the events already carry the rows) and
 * foreign keys are checked at the commit. SQLite only: a store node runs on SQLite.
 */
export async function moveRowIds(trx: Kysely<DB>, engine: Engine, moves: IdMoves, fromSeq: number): Promise<void> {
  if (moves.size === 0) return;
  if (engine.dialect !== 'sqlite') throw new Error('this store was restored from a backup and its new rows need new ids, which is done on SQLite only: pair it again');
  await withCaptureQuiet(trx, async () => {
    await sql`pragma defer_foreign_keys = on`.execute(trx);
    await sql`create temp table if not exists sync_id_moves (tbl text not null, old_id integer not null, new_id integer not null, primary key (tbl, old_id))`.execute(trx);
    await sql`delete from temp.sync_id_moves`.execute(trx);
    for (const [table, ids] of moves) {
      for (const chunk of chunks([...ids], 300)) {
        await sql`insert into temp.sync_id_moves (tbl, old_id, new_id) values ${sql.join(chunk.map(([from, to]) => sql`(${table}, ${from}, ${to})`))}`.execute(trx);
      }
    }
    await withLedgerGuardsLifted(trx, async () => {
      for (const table of moves.keys()) await moveColumn(trx, { table, column: 'id', names: table });
      for (const reference of ID_REFERENCES) if (!reference.inChangesOnly && moves.has(reference.names)) await moveColumn(trx, reference);
    });
    // The changes first: the replies to patch are found through their (moved) row ids.
    await moveIdsInChanges(trx, moves, fromSeq);
    await moveIdsInReplies(trx, moves, fromSeq);
    await sql`drop table temp.sync_id_moves`.execute(trx);
  });
}

/** One column's ids that moved, set to the new ones in one statement. */
async function moveColumn(trx: Kysely<DB>, reference: IdReference): Promise<void> {
  const column = sql.ref(`x.${reference.column}`);
  const oldId = reference.text ? sql`cast(m.old_id as text)` : sql`m.old_id`;
  const newId = reference.text ? sql`cast(m.new_id as text)` : sql`m.new_id`;
  const when = reference.when ? sql`and ${sql.ref(`x.${reference.when.column}`)} = ${reference.when.value}` : sql``;
  await sql`update ${sql.table(reference.table)} as x
    set ${sql.ref(reference.column)} = (select ${newId} from temp.sync_id_moves m where m.tbl = ${reference.names} and ${oldId} = ${column})
    where ${column} in (select ${oldId} from temp.sync_id_moves m where m.tbl = ${reference.names}) ${when}`.execute(trx);
}

/**
 * Ledger entries cannot be changed (their guard triggers refuse it); only ids move here, in the
 * same transaction, so the guards are set aside for it and put back as they were.
 */
async function withLedgerGuardsLifted(trx: Kysely<DB>, work: () => Promise<void>): Promise<void> {
  const guards = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'ledger_entries' and name like 'ledger_entries_no_%'`.execute(trx);
  for (const guard of guards.rows) await sql`drop trigger ${sql.id(guard.name)}`.execute(trx);
  await work();
  for (const guard of guards.rows) await sql.raw(guard.sql).execute(trx);
}

/** Ids inside the stored replies and receipts of the rows the store's unsent events wrote. */
async function moveIdsInReplies(trx: Kysely<DB>, moves: IdMoves, fromSeq: number): Promise<void> {
  for (const table of new Set(JSON_ID_REFERENCES.map((r) => r.table))) {
    const columns = [...new Set(JSON_ID_REFERENCES.filter((r) => r.table === table).map((r) => r.column))];
    const ids = (await changesFrom(trx, fromSeq).select('row_id').distinct().where('tbl', '=', table).execute()).map((r) => Number(r.row_id));
    for (const chunk of chunks(ids, 500)) {
      const rows = await sql<Record<string, unknown>>`select id, ${sql.join(columns.map((c) => sql.ref(c)))} from ${sql.table(table)} where id in (${sql.join(chunk)})`.execute(trx);
      for (const row of rows.rows) {
        const set: Record<string, unknown> = {};
        for (const column of columns) {
          const moved = movedJson(table, column, row[column], moves);
          if (moved !== null) set[column] = moved;
        }
        if (Object.keys(set).length > 0) await trx.updateTable(table as 'orders').set(set as never).where('id', '=', Number(row['id'])).execute();
      }
    }
  }
}

/** The unsent changes from event `fromSeq` on, with the moved ids in their rows. */
async function moveIdsInChanges(trx: Kysely<DB>, moves: IdMoves, fromSeq: number): Promise<void> {
  const changes = await changesFrom(trx, fromSeq).select(['seq', 'tbl', 'row_id', 'data']).execute();
  for (const change of changes) {
    const data = JSON.parse(change.data) as Record<string, unknown>;
    if (!moveIdsInRow(change.tbl, data, moves)) continue;
    const rowId = moves.get(change.tbl)?.get(Number(change.row_id)) ?? Number(change.row_id);
    await trx.updateTable('sync_changes').set({ row_id: rowId, data: JSON.stringify(data) }).where('seq', '=', Number(change.seq)).execute();
  }
}

/** A row as an event carries it, its moved ids replaced in place; true when any was. */
export function moveIdsInRow(table: string, data: Record<string, unknown>, moves: IdMoves): boolean {
  let moved = false;
  const own = moves.get(table)?.get(Number(data['id']));
  if (own !== undefined) {
    data['id'] = own;
    moved = true;
  }
  for (const reference of ID_REFERENCES) {
    if (reference.table !== table || (reference.when && data[reference.when.column] !== reference.when.value)) continue;
    const value = data[reference.column];
    const to = value == null ? undefined : moves.get(reference.names)?.get(Number(value));
    if (to === undefined) continue;
    data[reference.column] = reference.text ? String(to) : to;
    moved = true;
  }
  for (const column of new Set(JSON_ID_REFERENCES.filter((r) => r.table === table).map((r) => r.column))) {
    const text = movedJson(table, column, data[column], moves);
    if (text === null) continue;
    data[column] = text;
    moved = true;
  }
  return moved;
}

/** A JSON text column with its moved ids replaced; null when nothing in it moved (or it is not JSON). */
function movedJson(table: string, column: string, text: unknown, moves: IdMoves): string | null {
  if (typeof text !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  let moved = false;
  for (const reference of JSON_ID_REFERENCES) {
    if (reference.table !== table || reference.column !== column) continue;
    moved = moveAtPath(value, reference.path, moves.get(reference.names)) || moved;
  }
  return moved ? JSON.stringify(value) : null;
}

/** Replaces the id at `path` inside `value` ('*': each element of an array) when it moved. */
function moveAtPath(value: unknown, path: readonly string[], moves: Map<number, number> | undefined): boolean {
  if (!moves || value === null || typeof value !== 'object') return false;
  const [key, ...rest] = path;
  if (key === '*') return Array.isArray(value) && value.map((item) => moveAtPath(item, rest, moves)).some(Boolean);
  const record = value as Record<string, unknown>;
  if (rest.length > 0) return moveAtPath(record[key!], rest, moves);
  const to = typeof record[key!] === 'number' ? moves.get(record[key!] as number) : undefined;
  if (to === undefined) return false;
  record[key!] = to;
  return true;
}
