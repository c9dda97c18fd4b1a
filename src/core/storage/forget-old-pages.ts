import { sql } from 'kysely';
import type { Engine } from '../engine';
import { readSnapshotsEnded } from './read-snapshot';

// An erasure wipes the person's rows, and SQLite writes the wiped pages to the WAL file; the pages
// as they were before (the name, email, phone, address, cédula) stay there as older frames until
// SQLite writes over them — on a quiet till, days later; a copy of the folder or a look with a hex
// editor reads them meanwhile (docs/decisions.md, "an erased customer leaves nothing behind").
// A truncating checkpoint copies the WAL into the database file, whose pages are then rewritten
// whole (what their rows held before is zeroed by secure_delete), and empties the WAL file.
// Erasures are rare: the cost (one checkpoint, a few milliseconds) is paid only then.

const ATTEMPTS = 5;
const RETRY_MS = 200;

/**
 * Empties an SQLite node's WAL after a command that wiped personal data (committed before this is
 * called); PostgreSQL keeps its own WAL on the server (nothing a node can do). Waits for long
 * reads' snapshots to end (read-snapshot.ts: bounded by their time limit). A reader or another
 * checkpoint in the way is waited for (busy_timeout) and tried again a few times; answers whether
 * the WAL was emptied. Never throws: the erasure itself is done and stands.
 */
export async function forgetOldPages(engine: Pick<Engine, 'db' | 'dialect'>): Promise<boolean> {
  if (engine.dialect !== 'sqlite') return false;
  // A long read's snapshot (a members export) pins the WAL: tried now, each attempt would hold the
  // node's thread for the whole busy_timeout (a truncating checkpoint waits for every reader).
  await readSnapshotsEnded(engine.db);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const { rows } = await sql<{ busy: number; log: number; checkpointed: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db);
      // An in-memory database has no WAL: log is -1.
      if (rows[0] && Number(rows[0].busy) === 0) return true;
    } catch {
      // The database closed under it (a node stopping): nothing more to do.
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  return false;
}
