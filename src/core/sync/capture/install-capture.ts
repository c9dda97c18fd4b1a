import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../storage/dialect';
import { getMeta, setMeta } from '../../storage/node-meta';
import type { DB } from '../../storage/schema';
import { PG_WRITE_LOCK as PG_LOCK } from '../../storage/write-lock';
import { quoted } from '../bulk-lists';
import { REPLICATED_TABLES, type ReplicatedTable, replicatedTable } from '../replicated-tables';

// Triggers copy every change of a replicated table into sync_changes in the writing transaction, so
// nothing a use case writes can be forgotten by sync, whichever code path wrote it. Central captures
// what stores pull; a paired store captures what it pushes. The triggers are recreated on every start,
// so columns added by later migrations are captured too.

export type CaptureRole = 'central' | 'store';

/** Set, for one statement, to the name of a table whose inserted rows that statement logged itself. */
const PG_LOGGED_SETTING = 'punchcard.capture_logged';
const PG_INSTALL_LOCK = 7_301_002;

export async function installChangeCapture(db: Kysely<DB>, dialect: Dialect, role: CaptureRole): Promise<void> {
  const tables = REPLICATED_TABLES.filter((t) => (role === 'central' ? t.pull : t.push));
  await db.transaction().execute(async (trx) => {
    // Several central processes starting together on one PostgreSQL install the triggers one at a
    // time (concurrent CREATE OR REPLACE FUNCTION collide in the catalogue).
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${PG_INSTALL_LOCK})`.execute(trx);
    const before = await getMeta(trx, 'sync_capture');
    await removeTriggers(trx, dialect);
    if (dialect === 'postgres') await installPostgres(trx, tables, role);
    else for (const table of tables) await installSqlite(trx, table, role);
    // Central's first start: rows that existed before capture began enter the log, parents first.
    if (role === 'central' && before !== 'central') await backfillChangeLog(trx, dialect);
    // Each role keeps only the log index it reads, since every captured change enters every index.
    // Changes are grouped into events by event_seq on a store only (at central every change would
    // enter that index under null); the vendor's changes after a cursor are read at central only
    // (pulls, chain health).
    if (role === 'central') {
      await sql`drop index if exists sync_changes_event`.execute(trx);
      await sql`create index if not exists sync_changes_vendor on sync_changes (vendor_id, seq)`.execute(trx);
    } else {
      await sql`create index if not exists sync_changes_event on sync_changes (event_seq, seq)`.execute(trx);
      await sql`drop index if exists sync_changes_vendor`.execute(trx);
    }
    await setMeta(trx, 'sync_capture', role);
  });
}

export async function removeChangeCapture(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  await removeTriggers(db, dialect);
  await db.deleteFrom('node_meta').where('key', '=', 'sync_capture').execute();
}

async function removeTriggers(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  for (const table of REPLICATED_TABLES) {
    if (dialect === 'postgres') {
      // `sync_capture` was the row-level trigger of earlier versions.
      for (const name of ['sync_capture', 'sync_capture_insert', 'sync_capture_update', 'sync_capture_delete']) await sql.raw(`drop trigger if exists ${name} on ${table.name}`).execute(db);
    } else {
      for (const op of ['ins', 'upd', 'del']) await sql.raw(`drop trigger if exists sync_capture_${table.name}_${op}`).execute(db);
    }
  }
}

async function backfillChangeLog(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  for (const table of REPLICATED_TABLES.filter((t) => t.pull)) {
    const json = dialect === 'postgres' ? `(${pgRowJson(table, 'r')})::text` : sqliteRowJson(table, await sqliteColumns(db, table), 'r');
    await sql
      .raw(
        `insert into sync_changes (tbl, row_id, op, vendor_id, data)
         select '${table.name}', r.id, 'upsert', ${vendorOf(table, 'r')}, ${json} from ${table.name} r order by r.id`,
      )
      .execute(db);
  }
}

export async function sqliteColumns(db: Kysely<DB>, table: ReplicatedTable): Promise<string[]> {
  const result = await sql<{ name: string }>`select name from pragma_table_info(${table.name})`.execute(db);
  const omit = new Set(table.omit ?? []);
  return result.rows.map((r) => r.name).filter((name) => !omit.has(name));
}

/** The ledger's holder columns, which an entry carries from its account wherever it travels. */
const HOLDER_COLUMNS = ['holder_type', 'holder_id', 'currency_id'] as const;

/**
 * A column's value as the row travels: the column itself, or the fixed value it travels as
 * (`masked`, text: `cast` appends PostgreSQL's `::text`).
 */
function travellingValue(table: ReplicatedTable, column: string, value: string, cast = ''): string {
  const masked = table.masked?.[column];
  return masked === undefined ? value : `${sqlString(masked)}${cast}`;
}

export function sqliteRowJson(table: ReplicatedTable, columns: string[], row: string): string {
  const pairs = columns.map((c) => `'${c}', ${travellingValue(table, c, `${row}.${c}`)}`);
  if (table.name === 'ledger_entries') {
    for (const c of HOLDER_COLUMNS) {
      pairs.push(`'${c}', (select a.${c} from ledger_accounts a where a.id = ${row}.account_id)`);
    }
  }
  return `json_object(${pairs.join(', ')})`;
}

/**
 * A row as a JSON array of the values `sqliteRowJson`/`pgRowJson` would give as an object, and the
 * names in that order (a snapshot page sent as columns).
 */
export async function rowArrayOf(db: Kysely<DB>, dialect: Dialect, table: ReplicatedTable, row: string): Promise<{ columns: string[]; json: string }> {
  const omit = new Set(table.omit ?? []);
  const own = dialect === 'sqlite' ? await sqliteColumns(db, table) : (await pgColumnTypes(db, table.name)).map((c) => c.name).filter((name) => !omit.has(name));
  const values = own.map((c) => travellingValue(table, c, `${row}.${quoted(c)}`, dialect === 'postgres' ? '::text' : ''));
  const columns = [...own];
  if (table.name === 'ledger_entries') {
    for (const c of HOLDER_COLUMNS) {
      columns.push(c);
      values.push(`(select a.${c} from ledger_accounts a where a.id = ${row}.account_id)`);
    }
  }
  return { columns, json: dialect === 'sqlite' ? `json_array(${values.join(', ')})` : `json_build_array(${values.join(', ')})::text` };
}

function vendorOf(table: ReplicatedTable, row: string): string {
  return table.vendorColumn ? `${row}.${table.vendorColumn}` : 'null';
}

/**
 * What a store's log calls a row's insert: 'insert', so that the rows an event made are told from
 * those it changed (a store restored from a backup gives the rows it made new ids:
 * store/reassign-row-ids.ts). Both travel as upserts; central's log keeps 'upsert' for both.
 */
const insertOp = (role: CaptureRole) => (role === 'store' ? 'insert' : 'upsert');

async function installSqlite(db: Kysely<DB>, table: ReplicatedTable, role: CaptureRole): Promise<void> {
  const columns = await sqliteColumns(db, table);
  const events = { ins: ['insert', 'NEW', insertOp(role)], upd: ['update', 'NEW', 'upsert'], del: ['delete', 'OLD', 'delete'] } as const;
  for (const [suffix, [event, row, op]] of Object.entries(events)) {
    await sql
      .raw(
        `create trigger sync_capture_${table.name}_${suffix} after ${event} on ${table.name}
         when (select active from sync_apply_mode) = 0
         begin
           insert into sync_changes (tbl, row_id, op, vendor_id, data)
           values ('${table.name}', ${row}.id, '${op}', ${vendorOf(table, row)}, ${sqliteRowJson(table, columns, row)});
         end`,
      )
      .execute(db);
  }
}

export function pgRowJson(table: ReplicatedTable, row: string): string {
  const omit = (table.omit ?? []).map((c) => `'${c}'`).join(', ');
  let json = `to_jsonb(${row})${omit ? ` - array[${omit}]::text[]` : ''}`;
  const masked = Object.entries(table.masked ?? {}).map(([c, v]) => `'${c}', ${sqlString(v)}::text`);
  if (masked.length > 0) json = `(${json}) || jsonb_build_object(${masked.join(', ')})`;
  if (table.name === 'ledger_entries') {
    json = `${json} || (select jsonb_build_object('holder_type', a.holder_type, 'holder_id', a.holder_id, 'currency_id', a.currency_id) from ledger_accounts a where a.id = ${row}.account_id)`;
  }
  return json;
}

async function installPostgres(db: Kysely<DB>, tables: readonly ReplicatedTable[], role: CaptureRole): Promise<void> {
  for (const table of tables) {
    // Statement-level triggers over transition tables: a multi-row insert (central's bulk apply)
    // logs all its rows with one insert, not one trigger call per row. The lock keeps the log's
    // sequence in commit order for pulls; rows of one statement are logged in id order.
    await sql
      .raw(
        `create or replace function sync_capture_${table.name}() returns trigger language plpgsql as $fn$
         begin
           -- An insert that logged its own rows (pgInsertLogging) leaves this one skip for its trigger.
           if tg_op = 'INSERT' and current_setting('${PG_LOGGED_SETTING}', true) = tg_table_name then
             perform set_config('${PG_LOGGED_SETTING}', '', true);
             return null;
           end if;
           if (select active from sync_apply_mode) = 1 then return null; end if;
           perform pg_advisory_xact_lock(${PG_LOCK});
           insert into sync_changes (tbl, row_id, op, vendor_id, data)
           select '${table.name}', r.id, case tg_op when 'DELETE' then 'delete' when 'INSERT' then '${insertOp(role)}' else 'upsert' end, ${vendorOf(table, 'r')}, (${pgRowJson(table, 'r')})::text
           from changed_rows r order by r.id;
           return null;
         end $fn$`,
      )
      .execute(db);
    for (const [event, transition] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql
        .raw(
          `create trigger sync_capture_${event} after ${event} on ${table.name}
           referencing ${transition} table as changed_rows for each statement execute function sync_capture_${table.name}()`,
        )
        .execute(db);
    }
  }
}

/**
 * What the insert trigger of `table` would log for the rows whose ids are bound as a JSON array, as
 * one INSERT … SELECT (SQLite). Central's bulk apply inserts many rows with capture paused and logs
 * them with this statement: the same entries, without a trigger program per row. Null when the
 * table is not captured here.
 */
export async function sqliteLogOfInsertedRows(db: Kysely<DB>, tableName: string): Promise<string | null> {
  const table = replicatedTable(tableName);
  if (!table) return null;
  const trigger = await sql`select 1 as one from sqlite_master where type = 'trigger' and name = ${`sync_capture_${table.name}_ins`}`.execute(db);
  if (trigger.rows.length === 0) return null;
  const json = sqliteRowJson(table, await sqliteColumns(db, table), 'r');
  return `insert into sync_changes (tbl, row_id, op, vendor_id, data)
          select '${table.name}', r.id, 'upsert', ${vendorOf(table, 'r')}, ${json}
          from ${table.name} r where r.id in (select value from json_each(?)) order by r.id`;
}

/**
 * How an INSERT … SELECT into `tableName` logs its own rows on PostgreSQL, as its capture trigger
 * would (same entries, same order, same lock), with the row's JSON built as text column by column:
 * to_jsonb of the inserted rows was a tenth of PostgreSQL's CPU in a bulk apply, and this text
 * costs about a quarter of it (500 orders: 6 ms against 22). The text is jsonb's own: keys ordered
 * by length then bytes, `": "` and `", "` between, strings escaped by to_json. Null when the table
 * is not replicated or has a column whose JSON text this cannot produce exactly (integers, text
 * and booleans only).
 *
 * `guard` decides in the statement, once, whether it logs: capture active, the trigger installed with
 * this version's skip, and the table's columns still those the text was built for (`guardWhen`
 * adds a condition of the caller's). It also takes the log's lock. When it says yes, it sets the
 * setting the trigger skips on, so nothing is logged twice; when no, the trigger logs as usual.
 * `select` reads the inserted rows as `r`; `logs` is the condition, on the guard's row, that it
 * should. An insert whose triggers did not fire (bulk-keys-postgres.ts) must `clear` that setting,
 * which the skipped trigger would have.
 */
export async function pgInsertLogging(db: Kysely<DB>, tableName: string): Promise<PgInsertLogging | null> {
  const table = replicatedTable(tableName);
  if (!table) return null;
  const columns = await pgColumnTypes(db, table.name);
  const omit = new Set(table.omit ?? []);
  const fields = new Map<string, string>();
  for (const c of columns) if (!omit.has(c.name)) fields.set(c.name, pgJsonText(c.type, travellingValue(table, c.name, `r.${quoted(c.name)}`, '::text')) ?? '');
  let from = '';
  if (table.name === 'ledger_entries') {
    const account = await pgColumnTypes(db, 'ledger_accounts');
    for (const name of HOLDER_COLUMNS) {
      const type = account.find((c) => c.name === name)?.type;
      fields.set(name, (type && pgJsonText(type, `a.${name}`)) ?? '');
    }
    from = ' from ledger_accounts a where a.id = r.account_id';
  }
  if ([...fields.values()].some((v) => v === '')) return null;
  // jsonb orders an object's keys by length, then bytewise.
  const keys = [...fields.keys()].sort((x, y) => Buffer.byteLength(x) - Buffer.byteLength(y) || Buffer.compare(Buffer.from(x), Buffer.from(y)));
  const parts = keys.map((k, i) => `${sqlString(`${i === 0 ? '{' : ', '}${JSON.stringify(k)}: `)}, ${fields.get(k)!}`);
  // The ledger's holder comes from its account, as in pgRowJson: no account, no text.
  const text = `(select concat(${parts.join(', ')}, '}')${from})`;
  const signature = columns.map((c) => `${c.name}:${c.type}`).join(',');
  const relation = sqlString(quoted(table.name));
  const condition = `(select active from sync_apply_mode) = 0
      and exists (select 1 from pg_trigger t join pg_proc p on p.oid = t.tgfoid where t.tgrelid = ${relation}::regclass and t.tgname = 'sync_capture_insert' and t.tgenabled <> 'D' and p.prosrc like '%${PG_LOGGED_SETTING}%')
      and (select string_agg(attname || ':' || format_type(atttypid, null), ',' order by attnum) from pg_attribute where attrelid = ${relation}::regclass and attnum > 0 and not attisdropped) = ${sqlString(signature)}`;
  const guardWhen = (also: string) => `set_config('${PG_LOGGED_SETTING}', case when ${condition} and ${also} then ${sqlString(table.name)} else '' end, true) as logging, pg_advisory_xact_lock(${PG_LOCK}) as locked`;
  return {
    guard: guardWhen('true'),
    guardWhen,
    logs: `logging = ${sqlString(table.name)}`,
    select: `select ${sqlString(table.name)}, r.id, 'upsert', ${vendorOf(table, 'r')}, ${text}`,
    clear: `set_config('${PG_LOGGED_SETTING}', '', true)`,
  };
}

export interface PgInsertLogging {
  guard: string;
  guardWhen(also: string): string;
  logs: string;
  select: string;
  clear: string;
}

/** A PostgreSQL table's columns in order: name, type (without typmod) and the type's category (N, S, B…). */
export async function pgColumnTypes(db: Kysely<DB>, table: string): Promise<Array<{ name: string; type: string; category: string }>> {
  const result = await sql<{ name: string; type: string; category: string }>`
    select a.attname as name, format_type(a.atttypid, null) as type, t.typcategory as category
    from pg_attribute a join pg_type t on t.oid = a.atttypid
    where a.attrelid = ${quoted(table)}::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum`.execute(db);
  return result.rows;
}

/** A column's value as jsonb writes it, or null for a type whose text may differ from jsonb's. */
function pgJsonText(type: string, value: string): string | null {
  if (['bigint', 'integer', 'smallint', 'boolean'].includes(type)) return `coalesce(${value}::text, 'null')`;
  if (['text', 'character varying'].includes(type)) return `coalesce(to_json(${value})::text, 'null')`;
  return null;
}

/** `text` as an SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
