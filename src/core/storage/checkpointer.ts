import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

// Checkpoints of a central node's SQLite file, off its event loop (docs/speed.md, twelfth pass).
// SQLite's automatic checkpoint runs inside the commit that fills the WAL past its threshold: it
// copies the WAL's pages into the database file and syncs that file before the commit returns.
// A store's push writes a page of a thousand events in one transaction, so every push paid that:
// half of its commit's time. Here a second connection, on a worker thread, checkpoints shortly
// after each transaction's commit (a statement run outside a transaction is copied with the next
// one's); the write connection keeps an automatic checkpoint only as a backstop at
// BACKSTOP_FRAMES, because SQLite starts the WAL over only when a writer finds it wholly copied,
// which a writer that never pauses may not do. The checkpoint connection syncs as the writer does
// (FULL), so nothing becomes less durable.
//
// Stores keep SQLite's own checkpoints: the bench pins a store to one core, where a second thread
// only competes with the requests (measured: no gain).

/** SQLite's own threshold (WAL frames), which a store keeps and a failed worker falls back to. */
export const SQLITE_DEFAULT_FRAMES = 1000;
/** WAL frames (pages) at which the write connection checkpoints itself: ~64 MB of 4 KB pages. */
export const BACKSTOP_FRAMES = 16_000;
/** How long after a commit the checkpoint starts, so that a burst of commits is copied once. */
const DELAY_MS = 5;

// The worker is evaluated from this text, not loaded from a file, so that it runs the same under
// tsx, the bundled Electron main and the built CLI. It waits on shared memory: slot 0 counts
// commits, slot 1 asks it to stop.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = FULL');
const signal = new Int32Array(workerData.signal);
let seen = 0;
for (;;) {
  Atomics.wait(signal, 0, seen);
  Atomics.wait(signal, 1, 0, workerData.delayMs);
  if (Atomics.load(signal, 1) !== 0) break;
  seen = Atomics.load(signal, 0);
  // Another checkpoint running (the writer's backstop) is not an error: it answers busy, and the
  // next commit tries again. A real failure (I/O, a full disk) ends the worker: see 'error' below.
  db.pragma('wal_checkpoint(PASSIVE)');
}
db.close();
`;

export interface Checkpointer {
  /** A transaction committed: its pages are copied shortly. */
  committed(): void;
  /** Ends the worker, after any checkpoint it is running (before the write connection closes). */
  stop(): Promise<void>;
}

export function startCheckpointer(writer: BetterSqlite3.Database, file: string, nativeBinding: string | undefined): Checkpointer {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, nativeBinding, module: createRequire(import.meta.url).resolve('better-sqlite3'), signal: signal.buffer, delayMs: DELAY_MS },
  });
  // A process that forgot to close its database still exits (stop() holds it while it waits).
  worker.unref();
  writer.pragma(`wal_autocheckpoint = ${BACKSTOP_FRAMES}`);
  let running = true;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (error) => {
    // The worker stopped on a failure (its connection did not open, a checkpoint failed): SQLite
    // checkpoints inside commits again, as it does for stores.
    running = false;
    if (writer.open) writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_FRAMES}`);
    process.emitWarning(`background checkpoints stopped: ${error.message}`, 'PunchcardCheckpointer');
  });
  return {
    committed() {
      if (!running) return;
      Atomics.add(signal, 0, 1);
      Atomics.notify(signal, 0);
    },
    async stop() {
      running = false;
      // Without this, a process whose last work is this wait would end with the wait unsettled.
      worker.ref();
      Atomics.store(signal, 1, 1);
      Atomics.add(signal, 0, 1);
      Atomics.notify(signal, 0);
      Atomics.notify(signal, 1);
      await exited;
    },
  };
}
