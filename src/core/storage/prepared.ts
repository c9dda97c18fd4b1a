import { type Compilable, CompiledQuery, type Insertable, type Kysely, type KyselyPlugin, type LimitNode, type OffsetNode, OperationNodeTransformer, ValueNode } from 'kysely';
import { type Dialect, dialectOf } from './dialect';
import { transactionStatementsOf } from './raw-writer';
import { readerOf } from './reader';
import type { DB } from './schema';

/**
 * A query of the hot paths built and compiled once per dialect, then run with new arguments
 * (issue 13: building and compiling a Kysely query cost more than running it on SQLite). `build`
 * is called once with placeholder arguments; every argument must reach the SQL as one bound value
 * (a where value, a limit) — not an `in` list, an identifier or a branch of the builder. The SQL
 * text is then the same on every call, so SQLite's statement cache and PostgreSQL's plans reuse it.
 * Outside a transaction on an SQLite file, SELECTs run on the read connection (reader.ts); writes
 * (an UPDATE … RETURNING) go through Kysely's connection like any other. Inside a transaction on
 * SQLite, every prepared query runs directly on the write connection (transactionStatementsOf).
 */
export function prepared<A extends Array<string | number | null>, R>(build: (db: Kysely<DB>, ...args: A) => Compilable<R>, arity = build.length - 1) {
  const compiled = new Map<Dialect, { sql: string; read: boolean; slots: Array<{ arg: number } | { value: unknown }> }>();
  const compile = (db: Kysely<DB>, dialect: Dialect) => {
    const markers = Array.from({ length: arity }, (_, i) => `\u0000arg${i}\u0000`) as A;
    const query = build(dialect === 'sqlite' ? db.withPlugin(INLINE_CONSTANTS) : db, ...markers).compile();
    const slots = query.parameters.map((value) => {
      const arg = typeof value === 'string' ? markers.indexOf(value) : -1;
      return arg >= 0 ? { arg } : { value };
    });
    const used = new Set(slots.flatMap((slot) => ('arg' in slot ? [slot.arg] : [])));
    if (used.size !== markers.length) throw new Error(`prepared query: every argument must be a bound value (${query.sql})`);
    const entry = { sql: query.sql, read: /^\s*select\b/i.test(query.sql), slots };
    compiled.set(dialect, entry);
    return entry;
  };
  const bind = (db: Kysely<DB>, args: A) => {
    const dialect = dialectOf(db as Kysely<unknown>);
    const entry = compiled.get(dialect) ?? compile(db, dialect);
    const parameters = entry.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    return { entry, parameters, reader: entry.read ? readerOf(db) : undefined };
  };
  const run = async (db: Kysely<DB>, ...args: A): Promise<R[]> => {
    const { entry, parameters, reader } = bind(db, args);
    if (reader) return reader.all(entry.sql, parameters) as R[];
    const inTransaction = transactionStatementsOf(db);
    if (inTransaction) return inTransaction(entry.sql, parameters) as R[];
    return (await db.executeQuery<R>(CompiledQuery.raw(entry.sql, parameters))).rows;
  };
  /** The rows now, synchronously, when the query is a read made on the read connection; else undefined (run it as usual). */
  const now = (db: Kysely<DB>, ...args: A): R[] | undefined => {
    const { entry, parameters, reader } = bind(db, args);
    return reader ? (reader.all(entry.sql, parameters) as R[]) : undefined;
  };
  return Object.assign(run, { now });
}

/**
 * On SQLite, the constants of a prepared query (not its arguments) are written into its SQL text:
 * a bound value compared with a column of a partial index's WHERE (pos_sessions.status = ?) makes
 * SQLite re-plan the statement on every run, and a bound LIMIT costs about as much; both took 3–8 µs
 * of a point read that costs under 1 µs (issue 13). Only strings (the same TEXT bound or written)
 * and LIMIT/OFFSET integers: a bound JS number is a REAL, a written one an INTEGER, which would
 * differ where a value is stored or turned into text.
 */
class InlineConstants extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    return !node.immediate && typeof node.value === 'string' && !node.value.includes('\u0000') ? ValueNode.createImmediate(node.value) : node;
  }

  protected override transformLimit(node: LimitNode): LimitNode {
    return { ...node, limit: inlineCount(node.limit) };
  }

  protected override transformOffset(node: OffsetNode): OffsetNode {
    return { ...node, offset: inlineCount(node.offset) };
  }
}

function inlineCount<N extends LimitNode['limit']>(node: N): N {
  return ValueNode.is(node) && !node.immediate && Number.isSafeInteger(node.value) && (node.value as number) >= 0 ? (ValueNode.createImmediate(node.value) as unknown as N) : node;
}

const inliner = new InlineConstants();
const INLINE_CONSTANTS: KyselyPlugin = {
  transformQuery: (args) => inliner.transformNode(args.node),
  transformResult: async (args) => args.result,
};

/** `db` building queries as `prepared` builds them on SQLite (constants in the text): what a plan test must plan. */
export function withConstantsInline(db: Kysely<DB>): Kysely<DB> {
  return db.withPlugin(INLINE_CONSTANTS);
}

/**
 * A family of prepared queries whose shape varies (optional filters, sort orders): one prepared
 * query per shape `key`, built by `build` with as many arguments as that shape binds.
 */
export function preparedShapes<R>() {
  const shapes = new Map<string, (db: Kysely<DB>, ...args: Array<string | number | null>) => Promise<R[]>>();
  return (db: Kysely<DB>, key: string, args: Array<string | number | null>, build: (db: Kysely<DB>, ...args: Array<string | number | null>) => Compilable<R>): Promise<R[]> => {
    let run = shapes.get(key);
    if (!run) {
      run = prepared(build, args.length);
      shapes.set(key, run);
    }
    return run(db, ...args);
  };
}

/**
 * An INSERT of one row into `table`, prepared per set of columns (the row object's keys, in order):
 * every value is a bound argument. Only plain values (no expressions).
 */
export function preparedInsert<T extends keyof DB & string>(table: T) {
  const byColumns = new Map<string, (db: Kysely<DB>, ...args: Array<string | number | null>) => Promise<unknown[]>>();
  return async (db: Kysely<DB>, row: Insertable<DB[T]>): Promise<void> => {
    // Like Kysely, a column whose value is undefined is left out (its default applies).
    const values = row as Record<string, string | number | null | undefined>;
    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const key = columns.join(',');
    let run = byColumns.get(key);
    if (!run) {
      run = prepared((q, ...args) => q.insertInto(table).values(Object.fromEntries(columns.map((column, i) => [column, args[i]])) as never), columns.length);
      byColumns.set(key, run);
    }
    await run(db, ...columns.map((column) => values[column] as string | number | null));
  };
}

/** `preparedInsert` for a table named at run time (replicated rows): one per table, made on first use. */
export function preparedInsertInto(table: string) {
  let insert = insertsByTable.get(table);
  if (!insert) {
    insert = preparedInsert(table as keyof DB & string) as (db: Kysely<DB>, row: Record<string, unknown>) => Promise<void>;
    insertsByTable.set(table, insert);
  }
  return insert;
}

const insertsByTable = new Map<string, (db: Kysely<DB>, row: Record<string, unknown>) => Promise<void>>();

/** A row by id from a table named at run time, prepared once per table. */
export function preparedRowById(table: string) {
  let read = readsByTable.get(table);
  if (!read) {
    read = prepared((db, id: number) =>
      db
        .selectFrom(table as 'users')
        .selectAll()
        .where('id', '=', id),
    ) as unknown as (db: Kysely<DB>, id: number) => Promise<Record<string, unknown>[]>;
    readsByTable.set(table, read);
  }
  return read;
}

const readsByTable = new Map<string, (db: Kysely<DB>, id: number) => Promise<Record<string, unknown>[]>>();
