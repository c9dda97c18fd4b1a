import { CompiledQuery, type Kysely } from 'kysely';
import { mapPerDatabase } from '../../storage/per-database';
import type { DB } from '../../storage/schema';
import { type PgInsertLogging, sqlString } from '../capture/install-capture';
import { quoted } from '../bulk-lists';

// Central's bulk insert on PostgreSQL checks its foreign keys once per statement instead of once per
// row (docs/speed.md). PostgreSQL checks a key by a trigger per inserted row: a lookup of
// the parent that locks it FOR KEY SHARE, ~3 µs each and nine of them per offline order (its order,
// history record and ledger entry), a quarter of the apply. Here the statement runs with row
// triggers off (`session_replication_role = replica`, for that statement only), and one query then
// finds and locks the distinct parents the rows name through each key, as the triggers would have,
// failing the run if any is missing (the push then takes those events one by one, where
// PostgreSQL's own checks refuse the bad one).
//
// Only where nothing else is lost with the triggers: the role may set the parameter (a superuser, or
// granted SET on it); every key of the table is on one column; and, checked by the statement itself
// (`KeyedInsert.also`), the table's keys are still those read here, no trigger but the capture's
// fires on its inserts, nothing fires on the change log, and the statement logs its rows itself.
// When the statement finds otherwise it inserts nothing, and the caller inserts as usual.

export interface ForeignKey {
  column: string;
  parent: string;
  /** A partitioned parent is read with its partitions; any other alone, as PostgreSQL's own check does (ONLY). */
  partitioned: boolean;
  parentColumn: string;
  parentType: string;
}

/** A table's keys, and the condition under which its insert may run with row triggers off. */
export interface KeyedInsert {
  keys: ForeignKey[];
  /** SQL, true while the keys are these and only the capture trigger would fire (for the capture guard). */
  also: string;
}

const allowedCache = new WeakMap<object, boolean>();

/** Whether this database's role may turn row triggers off for a statement (asked once per database). */
async function mayTurnTriggersOff(trx: Kysely<DB>): Promise<boolean> {
  const owner = trx.getExecutor().adapter;
  const known = allowedCache.get(owner);
  if (known !== undefined) return known;
  const role = await trx.executeQuery<{ super: boolean; version: number }>(
    CompiledQuery.raw(`select rolsuper as super, current_setting('server_version_num')::int as version from pg_roles where rolname = current_user`, []),
  );
  let allowed = role.rows[0]?.super === true;
  // SET on a superuser-only parameter can be granted from PostgreSQL 15 on.
  if (!allowed && (role.rows[0]?.version ?? 0) >= 150_000) {
    const granted = await trx.executeQuery<{ can: boolean }>(CompiledQuery.raw(`select has_parameter_privilege('session_replication_role', 'SET') as can`, []));
    allowed = granted.rows[0]?.can === true;
  }
  allowedCache.set(owner, allowed);
  return allowed;
}

const keyedCache = mapPerDatabase<string, KeyedInsert | null>();

/**
 * How `table`'s bulk insert may check its keys per statement (see above); null: insert as usual
 * (the role may not, or a key spans several columns). Read once per database: the statement itself
 * checks that the keys and triggers are still these.
 */
export async function keyedInsertOf(trx: Kysely<DB>, table: string): Promise<KeyedInsert | null> {
  if (!(await mayTurnTriggersOff(trx))) return null;
  const tables = keyedCache(trx.getExecutor().adapter);
  if (tables.has(table)) return tables.get(table)!;
  const relation = `${sqlString(quoted(table))}::regclass`;
  // A key dropped and made again gets a new oid, a parent renamed a new name: the signature then differs, as it should.
  const keysSignature = `(select coalesce(string_agg(c.oid::text || ' ' || c.confrelid::regclass::text || '.' || pa.attname, ',' order by c.oid), '')
    from pg_constraint c join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1] where c.conrelid = ${relation} and c.contype = 'f')`;
  const result = await trx.executeQuery<ForeignKey & { width: number; signature: string }>(
    CompiledQuery.raw(
      `select cardinality(c.conkey) as width, a.attname as "column",
              c.confrelid::regclass::text as parent, p.relkind = 'p' as partitioned,
              quote_ident(pa.attname) as "parentColumn", format_type(pa.atttypid, null) as "parentType", ${keysSignature} as signature
       from pg_constraint c
       join pg_class p on p.oid = c.confrelid
       join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
       join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1]
       where c.conrelid = ${relation} and c.contype = 'f' order by c.conname`,
      [],
    ),
  );
  let keyed: KeyedInsert | null = null;
  if (result.rows.every((k) => Number(k.width) === 1)) {
    const signature = result.rows[0]?.signature ?? '';
    // Insert triggers are bit 4 of tgtype. Of the internal ones only the keys' own checks may be
    // off: a deferrable unique or exclusion constraint is checked by an internal trigger too.
    const also = `${keysSignature} = ${sqlString(signature)}
      and not exists (select 1 from pg_trigger t where t.tgrelid = ${relation} and t.tgenabled <> 'D' and t.tgtype & 4 <> 0 and t.tgname <> 'sync_capture_insert'
        and (not t.tgisinternal or t.tgfoid <> '"RI_FKey_check_ins"'::regproc))
      and not exists (select 1 from pg_trigger t where t.tgrelid = 'sync_changes'::regclass and t.tgenabled <> 'D')
      and not exists (select 1 from pg_rewrite r where r.ev_class in (${relation}, 'sync_changes'::regclass) and r.rulename <> '_RETURN')`;
    keyed = { keys: result.rows.map(({ column, parent, partitioned, parentColumn, parentType }) => ({ column, parent, partitioned, parentColumn, parentType })), also };
  }
  tables.set(table, keyed);
  return keyed;
}

/** Runs `insert` with row triggers off, then puts the role and the capture's skip back. */
export async function withRowTriggersOff(trx: Kysely<DB>, logging: PgInsertLogging, insert: () => Promise<unknown>): Promise<void> {
  // Read first, in a statement of its own: the order a select list is evaluated in is not promised.
  const before = await trx.executeQuery<{ role: string }>(CompiledQuery.raw(`select current_setting('session_replication_role') as role`, []));
  await rememberingRefusal(trx, trx.executeQuery(CompiledQuery.raw(`select set_config('session_replication_role', 'replica', true)`, [])));
  await insert();
  // The capture trigger did not fire to clear the skip its guard set: cleared here, or the next insert into this table would go unlogged.
  await trx.executeQuery(CompiledQuery.raw(`select set_config('session_replication_role', $1, true), ${logging.clear}`, [before.rows[0]!.role]));
}

/**
 * A permission refused (the parameter's privilege taken away since it was asked, or locking a
 * parent FOR KEY SHARE, which needs UPDATE on it) fails this run, which is then taken again, and
 * sends later ones the usual way instead of failing each.
 */
async function rememberingRefusal<T>(trx: Kysely<DB>, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if ((error as { code?: string }).code === '42501') allowedCache.set(trx.getExecutor().adapter, false);
    throw error;
  }
}

/**
 * Finds and locks (FOR KEY SHARE, as PostgreSQL's own check does) the distinct parents the rows
 * name through each key, in one statement; throws when one is missing. Null values name no parent
 * (MATCH SIMPLE).
 */
export async function checkForeignKeys(trx: Kysely<DB>, table: string, keys: readonly ForeignKey[], rows: readonly Record<string, unknown>[]): Promise<void> {
  const named: Array<{ key: ForeignKey; values: string[] }> = [];
  for (const key of keys) {
    const values = new Set<string>();
    for (const row of rows) {
      const value = row[key.column];
      if (value !== null && value !== undefined) values.add(String(value));
    }
    if (values.size > 0) named.push({ key, values: [...values] });
  }
  if (named.length === 0) return;
  const counts = named.map(
    ({ key }, i) =>
      `(select count(distinct v) from unnest($${i + 1}::${key.parentType}[]) v)::int as wanted${i},
       (select count(*) from (select 1 from ${key.partitioned ? '' : 'only '}${key.parent} p where p.${key.parentColumn} = any($${i + 1}::${key.parentType}[]) for key share of p) s)::int as found${i}`,
  );
  const result = await rememberingRefusal(trx, trx.executeQuery<Record<string, number>>(CompiledQuery.raw(`select ${counts.join(', ')}`, named.map(({ values }) => values))));
  const row = result.rows[0]!;
  named.forEach(({ key }, i) => {
    const missing = row[`wanted${i}`]! - row[`found${i}`]!;
    if (missing !== 0) throw new Error(`${table}.${key.column}: ${missing} of the ${key.parent} rows it names do not exist`);
  });
}
