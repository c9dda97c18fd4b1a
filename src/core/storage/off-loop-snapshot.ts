import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type CompiledQuery, type DatabaseConnection, type Driver, Kysely, type QueryResult, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { DB } from './schema';

// A read snapshot of an SQLite file whose queries run on a worker thread, off the node's event
// loop (twentieth round, docs/decisions.md). better-sqlite3 runs every statement synchronously: a
// back-office report that reads a year of a chain central's history (seconds) held every store's
// sync, the app and /health for as long. Here the report's code stays on the main thread (it
// builds its queries and adds up their rows, which are few) and only the statements go to the
// worker, each as SQL text and parameters, on a connection of the worker's own holding one read
// transaction from the snapshot's open to its close: the report reads one state of the file,
// while the node goes on answering and writing beside it (WAL).
//
// One worker per file, started at the first snapshot and ended once none has been open for
// IDLE_MS; its statements run one after another (several reports at once share its thread).
// As the checkpointer's (checkpointer.ts), the worker is evaluated from this text, so that it
// runs the same under tsx, the bundled Electron main and the built CLI.

const IDLE_MS = 30_000;
const HEAP_MB = 256;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const snapshots = new Map();
function open() {
  const connection = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
  try {
    // As the node's read connections (reader.ts, read-snapshot.ts): reads only, waits out a
    // checkpoint's moment, sorts in memory.
    connection.pragma('query_only = ON');
    connection.pragma('busy_timeout = 5000');
    connection.pragma('temp_store = MEMORY');
    connection.prepare('begin').run();
    // The snapshot is taken at the transaction's first read.
    connection.prepare('select 1 from schema_migrations limit 1').all();
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}
parentPort.on('message', ({ id, op, snapshot, sql, parameters }) => {
  try {
    let rows = [];
    if (op === 'open') snapshots.set(snapshot, open());
    else if (op === 'close') {
      snapshots.get(snapshot)?.close();
      snapshots.delete(snapshot);
    } else {
      const connection = snapshots.get(snapshot);
      if (!connection) throw Object.assign(new Error('The read snapshot is closed.'), { code: 'SNAPSHOT_CLOSED' });
      const statement = connection.prepare(sql);
      if (statement.reader) rows = statement.all(...parameters);
      else statement.run(...parameters);
    }
    parentPort.postMessage({ id, rows });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

/** The file a database's off-loop snapshots read (its path, and the addon its connections load). */
export interface OffLoopFile {
  file: string;
  nativeBinding: string | undefined;
}

type Message = { op: 'open' | 'close'; snapshot: number } | { op: 'query'; snapshot: number; sql: string; parameters: readonly unknown[] };

/** The worker is gone (failed, or ended with the process): the report is answered 503, never a 500 or a crash. */
const workerGone = () => new ServiceError('service_unavailable', 'The report could not be read just now. Please try again.');

class SnapshotWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: unknown) => void }>();
  #nextId = 0;
  #snapshots = 0;
  #idle: NodeJS.Timeout | undefined;
  alive = true;

  constructor(
    where: OffLoopFile,
    private readonly onEnd: () => void,
  ) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: where.file, nativeBinding: where.nativeBinding, module: createRequire(import.meta.url).resolve('better-sqlite3') },
      // Its heap holds one statement's rows at a time: a runaway read ends the worker (503), not the node.
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    this.#worker.unref();
    this.#worker.on('message', ({ id, rows, error }: { id: number; rows: unknown[]; error?: { message: string; code?: string } }) => {
      const waiting = this.#pending.get(id);
      this.#pending.delete(id);
      if (this.#pending.size === 0) this.#worker.unref();
      if (!waiting) return;
      // The driver's error as the node's own connection throws it (its code tells a full disk, a damaged file…: unavailable.ts).
      if (error) waiting.reject(error.code === 'SNAPSHOT_CLOSED' ? workerGone() : Object.assign(new Error(error.message), { code: error.code }));
      else waiting.resolve(rows);
    });
    // A failure of the thread itself (out of memory, a crash of the addon): every waiting read fails cleanly.
    this.#worker.on('error', () => this.#ended());
    this.#worker.on('exit', () => this.#ended());
  }

  ask(message: Message): Promise<unknown[]> {
    if (!this.alive) return Promise.reject(workerGone());
    const id = this.#nextId++;
    this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...message });
    });
  }

  snapshotOpened(): void {
    this.#snapshots += 1;
    clearTimeout(this.#idle);
  }

  snapshotClosed(): void {
    this.#snapshots -= 1;
    if (this.#snapshots > 0) return;
    this.#idle = setTimeout(() => this.end(), IDLE_MS);
    this.#idle.unref();
  }

  /** Ends the thread; reads still waiting fail (503). */
  end(): Promise<number> {
    this.#ended();
    return this.#worker.terminate();
  }

  #ended(): void {
    if (!this.alive) return;
    this.alive = false;
    clearTimeout(this.#idle);
    this.onEnd();
    for (const waiting of this.#pending.values()) waiting.reject(workerGone());
    this.#pending.clear();
  }
}

const workers = new Map<string, SnapshotWorker>();
let nextSnapshot = 0;

function workerFor(where: OffLoopFile): SnapshotWorker {
  let worker = workers.get(where.file);
  if (!worker?.alive) {
    const started: SnapshotWorker = new SnapshotWorker(where, () => {
      if (workers.get(where.file) === started) workers.delete(where.file);
    });
    workers.set(where.file, (worker = started));
  }
  return worker;
}

/**
 * Opens a snapshot of the file on its worker, taken now: a Kysely whose queries read it there.
 * Destroying the Kysely closes the snapshot. A failure to open (the file gone, the disk) throws as
 * the node's own connection would.
 */
export async function openOffLoopSnapshot(where: OffLoopFile): Promise<Kysely<DB>> {
  const worker = workerFor(where);
  const snapshot = nextSnapshot++;
  worker.snapshotOpened();
  try {
    await worker.ask({ op: 'open', snapshot });
  } catch (error) {
    worker.snapshotClosed();
    throw error;
  }
  let closed = false;
  const connection: DatabaseConnection = {
    executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => ({ rows: (await worker.ask({ op: 'query', snapshot, sql: query.sql, parameters: query.parameters })) as R[] }),
    streamQuery: () => {
      throw new Error('An off-loop snapshot does not stream.');
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {
      throw new Error('An off-loop snapshot is one read transaction already.');
    },
    commitTransaction: async () => {},
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {
      if (closed) return;
      closed = true;
      try {
        if (worker.alive) await worker.ask({ op: 'close', snapshot });
      } finally {
        worker.snapshotClosed();
      }
    },
  };
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}

/** Ends the file's worker, if running: snapshots open on it fail (503). A node closing its database leaves no thread reading the file. */
export async function endOffLoopSnapshots(file: string): Promise<void> {
  await workers.get(file)?.end();
}
