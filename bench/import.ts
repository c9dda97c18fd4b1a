// `punchcard import customers`' use case at scale: BENCH_IMPORT_ROWS rows (default 5,000), each with
// an email, a phone, a new card, points and quick pay, imported into a fresh program on a node set up
// as a chain's central (change capture on), on an SQLite file and, when PG_URL is set, on a new
// PostgreSQL database of that server. Prints one JSON document: rows/s of each, and the statements
// the import sent (round trips, counted at the driver) per row, grouped by kind with the time spent
// waiting for them, which is where the time of a round-trip-bound import goes.
// Alone: `npx tsx bench/import.ts`; `npm run bench` runs it in a child on every core (BENCH_ONLY=import for it alone).
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { importMembers } from '../src/core/import/import-members';
import { readMemberFile } from '../src/core/import/member-file';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { openNodeEngine } from '../src/server/node/store-node';
import { createServerDatabase } from '../test/support/postgres';
import { makeTempDir } from '../test/support/temp-dir';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 5_000);

/** The members file: a header and ROWS members, each with every column the import reads. */
function membersFile(rows: number): string {
  const lines = ['first_name,last_name,email,phone,card,points,quick_pay'];
  for (let i = 0; i < rows; i += 1) lines.push(`Member,Number ${i},m${i}@bench.test,+1415${String(2_000_000 + i)},OLD${String(i).padStart(7, '0')},${i % 500},${i % 100}.${String(i % 100).padStart(2, '0')}`);
  return lines.join('\n');
}

/** Statements sent to the database while `counting` is on, by kind ("insert users", "savepoint"…), with the ms spent waiting for them. */
const statements = new Map<string, { count: number; ms: number }>();
let counting = false;

function kindOf(text: string): string {
  const words = text.trim().toLowerCase().replace(/"/g, '').split(/\s+/);
  const [first = '', second = '', third = ''] = words;
  if (first === 'insert' || first === 'delete') return `${first} ${third}`;
  if (first === 'update') return `update ${second}`;
  if (first === 'select') return `select ${words[words.indexOf('from') + 1] ?? ''}`.trim();
  return first;
}

function note(text: string, ms: number): void {
  if (!counting) return;
  const kind = kindOf(text);
  const seen = statements.get(kind) ?? { count: 0, ms: 0 };
  seen.count += 1;
  seen.ms += ms;
  statements.set(kind, seen);
}

// PostgreSQL: every query a pg client sends is one round trip.
const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string };
  const text = typeof first === 'string' ? first : (first.text ?? '');
  const started = performance.now();
  const result = pgQuery.apply(this, args);
  if (result instanceof Promise) void result.then(() => note(text, performance.now() - started), () => note(text, performance.now() - started));
  return result;
} as typeof pg.Client.prototype.query;

// SQLite: every run of a prepared statement.
const statementClass = Object.getPrototypeOf(new Database(':memory:').prepare('select 1')) as Record<'run' | 'all' | 'get' | 'iterate', (...args: unknown[]) => unknown> & { source: string };
for (const method of ['run', 'all', 'get', 'iterate'] as const) {
  const original = statementClass[method];
  statementClass[method] = function (this: { source: string }, ...args: unknown[]) {
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      note(this.source, performance.now() - started);
    }
  };
}

async function importOnce(database: string | undefined) {
  const dir = makeTempDir('punchcard-bench-import-');
  const engine = await openNodeEngine({ dataDir: dir.path, database, role: 'central' });
  try {
    const vendor = await setUpVendor(engine, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    const readStarted = performance.now();
    const file = readMemberFile(membersFile(ROWS));
    const readMs = performance.now() - readStarted;
    statements.clear();
    counting = true;
    const started = performance.now();
    const report = await importMembers(engine, { vendorId: vendor.vendorId, fileName: 'members.csv', records: file.records, decimalMark: file.decimalMark, dryRun: false });
    const seconds = (performance.now() - started) / 1000;
    counting = false;
    if (report.imported !== ROWS) throw new Error(`imported ${report.imported} of ${ROWS} rows: ${JSON.stringify(report.refusedByReason)}`);
    const total = [...statements.values()].reduce((sum, s) => sum + s.count, 0);
    const byKind = [...statements.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 12)
      .map(([kind, s]) => ({ kind, count: s.count, per_row: Number((s.count / ROWS).toFixed(3)), ms: Math.round(s.ms) }));
    return { seconds: Number(seconds.toFixed(1)), rows_per_s: Math.round(ROWS / seconds), read_file_ms: Math.round(readMs), statements_per_row: Number((total / ROWS).toFixed(2)), statements_by_kind: byKind };
  } finally {
    counting = false;
    await engine.close();
    dir.remove();
  }
}

export async function importFigures(): Promise<Record<string, unknown>> {
  const sqlite = await importOnce(undefined);
  const server = process.env.PG_URL;
  if (!server) return { rows: ROWS, sqlite, postgres: { skipped: 'set PG_URL to a PostgreSQL server to measure it' } };
  const scratch = await createServerDatabase(server, 'punchcard_import');
  try {
    return { rows: ROWS, sqlite, postgres: await importOnce(scratch.url) };
  } finally {
    await scratch.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await importFigures(), null, 2));
}
