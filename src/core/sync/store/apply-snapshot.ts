import { CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Engine } from '../../engine';
import { inList } from '../../storage/dialect';
import { nextObjectIds } from '../../storage/ids';
import { writeConnectionOf } from '../../storage/raw-writer';
import type { DB } from '../../storage/schema';
import { chunks, quoted, sqliteValue } from '../bulk-lists';
import type { RowTable } from '../protocol';
import { replicatedTable, STORE_CLEARED_COLUMNS } from '../replicated-tables';
import { tableColumns } from '../table-columns';
import { pendingRows, upsertRow } from './apply-pulled-changes';
import { withCaptureQuiet } from '../capture/capture-quiet';
import { highestOwnId, moveObjectCounterPast } from './object-counter';

// A page of a first sync's snapshot (docs/sync.md, "First sync"), written in bulk in the caller's
// transaction with capture quiet. The store is new, so central's rows are mostly simply inserted; a
// row that meets one already here (a customer brought early for a waiting counter, a row this store
// wrote and pushed, a local row holding a unique key) takes the pull's row-by-row rules, and rows
// this store changed and has not pushed are skipped (central's version follows them through the
// log). Ledger entries open their accounts and move their balances in bulk: each account's balance
// is the sum of its entries.

type Row = Record<string, unknown>;

/**
 * Columns that point at a replicated parent a concurrent change may not have brought yet. Not
 * `reverses_id`: its target may be pages ahead in id order, so central sends it with the page
 * (central/snapshot-targets-ahead.ts); a row missing it would be one to keep, not to leave out.
 */
const PARENTS: Readonly<Record<string, string>> = {
  user_id: 'users',
  card_id: 'cards',
  order_id: 'orders',
  tier_id: 'tiers',
  store_id: 'stores',
  pos_id: 'points_of_sale',
  currency_id: 'currencies',
};

/** Writes one snapshot page; returns how many rows were written. */
export async function applySnapshotPage(trx: Kysely<DB>, engine: Engine, vendorId: number, table: string, page: RowTable): Promise<number> {
  if (!replicatedTable(table)?.pull) throw new Error(`central sent a snapshot of ${table}, which stores do not receive`);
  if (page.rows.length === 0) return 0;
  const at = new Map(page.columns.map((c, i) => [c, i]));
  const idAt = at.get('id');
  if (idAt === undefined) throw new Error(`central sent ${table} rows without their ids`);
  const kept = await withCaptureQuiet(trx, async () => {
    if (engine.dialect === 'sqlite') await sql`pragma defer_foreign_keys = on`.execute(trx);
    // Sales made here during the first sync (customers already received check in) are this store's news.
    const ownWrites = (await trx.selectFrom('sync_changes').select('seq').limit(1).executeTakeFirst()) !== undefined;
    const pending = ownWrites ? await pendingRows(trx) : new Set<string>();
    const columns = await tableColumns(trx, engine.dialect, table);
    let rows = pending.size === 0 ? page.rows : page.rows.filter((values) => !pending.has(`${table}:${Number(values[idAt])}`));
    // A row whose parent is not here yet was written after the snapshot's cursor: the log brings both.
    rows = await withParentsPresent(trx, table, at, rows, columns);
    if (table === 'ledger_entries') {
      await insertEntries(trx, engine, at, rows, columns);
    } else {
      const known = table === 'users' ? new Set((await trx.selectFrom('vendors').select('id').execute()).map((v) => Number(v.id))) : null;
      const replicated = replicatedTable(table);
      const defaults: Row = { ...replicated?.insertDefaults, ...replicated?.masked };
      for (const column of STORE_CLEARED_COLUMNS[table] ?? []) defaults[column] = null;
      const list = [...columns].filter((c) => at.has(c) || c in defaults);
      const firstVendor = list.indexOf('first_vendor_id');
      const sources = list.map((c) => (c in defaults ? -1 : at.get(c)!));
      const tuples = rows.map((values) => {
        const tuple = list.map((c, i) => (sources[i]! < 0 ? defaults[c] : values[sources[i]!]));
        // A customer who first joined another vendor points at a vendor this store never sees.
        if (known && firstVendor >= 0 && !known.has(Number(tuple[firstVendor]))) tuple[firstVendor] = vendorId;
        return tuple;
      });
      // A row not inserted is here already (brought earlier for a waiting counter, or this store's
      // own, pushed) or meets a local row holding one of its unique keys: central's version wins, by
      // the pull's rules (the local holder steps aside).
      for (const index of await insertTuples(trx, engine, table, list, tuples)) {
        await upsertRow(trx, engine, vendorId, table, Object.fromEntries(page.columns.map((c, i) => [c, rows[index]![i]])));
      }
    }
    return rows;
  });
  // Rows of this node's own range come only to a store restored from a backup mid-snapshot (see the pull).
  const ownHighest = highestOwnId(engine, page.rows.map((values) => values[idAt]));
  if (ownHighest !== null) await moveObjectCounterPast(trx, engine, ownHighest);
  return kept.length;
}

async function withParentsPresent(trx: Kysely<DB>, table: string, at: Map<string, number>, rows: unknown[][], columns: Set<string>): Promise<unknown[][]> {
  let kept = rows;
  for (const [column, parent] of Object.entries(PARENTS)) {
    const index = at.get(column);
    if (index === undefined || !columns.has(column) || parent === table) continue;
    const wanted = [...new Set(kept.map((values) => values[index]).filter((v): v is number => typeof v === 'number'))];
    if (wanted.length === 0) continue;
    const present = new Set<number>();
    for (const chunk of chunks(wanted, 5_000)) {
      for (const row of await trx.selectFrom(parent as 'users').select('id').where(inList(trx, 'id', chunk, 'bigint')).execute()) present.add(Number(row.id));
    }
    if (present.size < wanted.length) kept = kept.filter((values) => typeof values[index] !== 'number' || present.has(values[index]));
  }
  return kept;
}

/**
 * Entries in bulk: the accounts of their holders and currencies are found or opened (ids drawn from
 * this node's sequence in one step), new accounts start at the sum of their entries, existing ones
 * move by it, and the entries go in with one insert.
 */
async function insertEntries(trx: Kysely<DB>, engine: Engine, at: Map<string, number>, rows: unknown[][], columns: Set<string>): Promise<void> {
  if (rows.length === 0) return;
  const field = (values: unknown[], name: string) => values[at.get(name) ?? -1];
  const present = new Set<number>();
  for (const chunk of chunks(rows.map((values) => Number(field(values, 'id'))), 5_000)) {
    for (const row of await trx.selectFrom('ledger_entries').select('id').where(inList(trx, 'id', chunk, 'bigint')).execute()) present.add(Number(row.id));
  }
  const fresh = targetsFirst(
    rows.filter((values) => !present.has(Number(field(values, 'id')))),
    at.get('id')!,
    at.get('reverses_id'),
  );
  if (fresh.length === 0) return;
  const keyOf = (holderType: unknown, holderId: unknown, currencyId: unknown) => `${String(holderType)}:${Number(holderId)}:${Number(currencyId)}`;
  const entryKey = (values: unknown[]) => keyOf(field(values, 'holder_type'), field(values, 'holder_id'), field(values, 'currency_id'));
  const accounts = new Map<string, { id: number | null; vendorId: number; holderType: string; holderId: number; currencyId: number; sum: number }>();
  for (const values of fresh) {
    const key = entryKey(values);
    const account = accounts.get(key);
    const amount = Number(field(values, 'amount'));
    if (account) account.sum += amount;
    else accounts.set(key, { id: null, vendorId: Number(field(values, 'vendor_id')), holderType: String(field(values, 'holder_type')), holderId: Number(field(values, 'holder_id')), currencyId: Number(field(values, 'currency_id')), sum: amount });
  }
  for (const holderType of new Set([...accounts.values()].map((a) => a.holderType))) {
    const holders = [...new Set([...accounts.values()].filter((a) => a.holderType === holderType).map((a) => a.holderId))];
    for (const chunk of chunks(holders, 5_000)) {
      // (holder_type, holder_id, currency_id) is the accounts' unique key: looked up by its index.
      const found = await trx.selectFrom('ledger_accounts').select(['id', 'holder_type', 'holder_id', 'currency_id']).where('holder_type', '=', holderType).where(inList(trx, 'holder_id', chunk, 'bigint')).execute();
      for (const a of found) {
        const account = accounts.get(keyOf(a.holder_type, a.holder_id, a.currency_id));
        if (account) account.id = Number(a.id);
      }
    }
  }
  const now = engine.clock.now();
  const opening = [...accounts.values()].filter((a) => a.id === null);
  if (opening.length > 0) {
    // One step of the node's object sequence reserves an id for every new account.
    const ids = await nextObjectIds(trx, engine.nodeId, opening.length);
    opening.forEach((a, i) => (a.id = ids[i]!));
    await insertNewRows(
      trx,
      engine,
      'ledger_accounts',
      opening.map((a) => ({ id: a.id, vendor_id: a.vendorId, currency_id: a.currencyId, holder_type: a.holderType, holder_id: a.holderId, balance: a.sum, updated_at: now })),
    );
  }
  // The entry's own columns (the holder travels with it, the account is this node's), and its account.
  const own = [...at.keys()].filter((c) => columns.has(c) && c !== 'account_id');
  const sources = own.map((c) => at.get(c)!);
  await insertTuples(trx, engine, 'ledger_entries', [...own, 'account_id'], fresh.map((values) => [...sources.map((i) => values[i]), accounts.get(entryKey(values))!.id]));
  const opened = new Set(opening);
  const moves = [...accounts.values()].filter((a) => !opened.has(a) && a.sum !== 0);
  for (const chunk of chunks(moves, 5_000)) {
    const values: RawBuilder<unknown> =
      engine.dialect === 'postgres'
        ? sql`(values ${sql.join(chunk.map((a) => sql`(${a.id}::bigint, ${a.sum}::bigint)`))}) as v(id, delta)`
        : sql`(select column1 as id, column2 as delta from (values ${sql.join(chunk.map((a) => sql`(${a.id}, ${a.sum})`))})) as v`;
    await sql`update ledger_accounts set balance = ledger_accounts.balance + v.delta, updated_at = ${now} from ${values} where ledger_accounts.id = v.id`.execute(trx);
  }
}

/**
 * Entries with each one after the entry of the list it reverses (central sends those ahead of the
 * page first, but a page's own reversal of a lower-numbered node still precedes its target). SQLite
 * defers the foreign key to the commit; PostgreSQL checks it after each insert of 5,000.
 */
function targetsFirst(rows: unknown[][], idAt: number, reversesAt: number | undefined): unknown[][] {
  if (reversesAt === undefined) return rows;
  const byId = new Map(rows.map((values) => [Number(values[idAt]), values]));
  const ordered: unknown[][] = [];
  const placed = new Set<unknown[]>();
  const place = (values: unknown[]) => {
    if (placed.has(values)) return;
    placed.add(values);
    const target = values[reversesAt] == null ? undefined : byId.get(Number(values[reversesAt]));
    if (target) place(target);
    ordered.push(values);
  };
  rows.forEach(place);
  return ordered;
}

/** Objects to one column list and tuples (all rows given here have the same keys). */
async function insertNewRows(trx: Kysely<DB>, engine: Engine, table: string, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  await insertTuples(
    trx,
    engine,
    table,
    columns,
    rows.map((row) => columns.map((c) => row[c])),
  );
}

/**
 * Rows in bulk, skipping any that meets a row already here on one of its unique keys (the id or
 * another): returns the indexes of those skipped. SQLite: one prepared statement run per row on the
 * write connection (cheaper than one statement of thousands of VALUES); PostgreSQL: the rows as
 * one JSON parameter.
 */
async function insertTuples(trx: Kysely<DB>, engine: Engine, table: string, columns: string[], tuples: unknown[][]): Promise<number[]> {
  const skipped: number[] = [];
  if (tuples.length === 0) return skipped;
  const list = columns.map(quoted).join(', ');
  if (engine.dialect === 'sqlite') {
    const raw = writeConnectionOf(engine.db);
    const text = `insert into ${quoted(table)} (${list}) values (${columns.map(() => '?').join(', ')}) on conflict do nothing`;
    tuples.forEach((tuple, index) => {
      if (raw.run(text, tuple.map(sqliteValue)) === 0) skipped.push(index);
    });
    return skipped;
  }
  const idAt = columns.indexOf('id');
  let offset = 0;
  for (const chunk of chunks(tuples, 5_000)) {
    const json = JSON.stringify(chunk.map((tuple) => Object.fromEntries(columns.map((c, i) => [c, tuple[i]]))));
    const result = await trx.executeQuery<{ id: unknown }>(
      CompiledQuery.raw(`insert into ${quoted(table)} (${list}) select ${list} from jsonb_populate_recordset(null::${quoted(table)}, $1::jsonb) on conflict do nothing returning id`, [json]),
    );
    const inserted = new Set(result.rows.map((row) => Number(row.id)));
    chunk.forEach((tuple, i) => {
      if (!inserted.has(Number(tuple[idAt]))) skipped.push(offset + i);
    });
    offset += chunk.length;
  }
  return skipped;
}
