import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The file steps of building a new SQLite database aside (database.ts): its migrations run in
 * `<file>.building-<pid>` without a single fsync, and the finished file is moved into place at once,
 * so a crash leaves either no database (only a leftover, removed at the next open) or a whole one.
 */

/**
 * Whether an SQLite location names a file that is not there yet (one to build aside). A folder
 * that is missing too is left to SQLite's open, which fails at once with its usual error.
 */
export function isNewSqliteFile(file: string): boolean {
  return isPlainFile(file) && !existsSync(file) && existsSync(dirname(file));
}

/** Whether an SQLite location names a file that is there (leftover builds beside it are removed at its open). */
export function isExistingSqliteFile(file: string): boolean {
  return isPlainFile(file) && existsSync(file);
}

function isPlainFile(file: string): boolean {
  return file !== '' && file !== ':memory:' && !file.startsWith('file:');
}

/** The aside file of this process; the pid tells a crashed build's leftover from a running one. */
export function asideFileOf(file: string): string {
  return `${file}.building-${process.pid}`;
}

/**
 * Removes what builds left beside `file` (with their -journal, -wal, -shm): those of processes
 * that are gone, this process's own unless `ownRunning` (one is being built now), and, whatever
 * its pid (gone, or reused by another process after a restart), a build's name that is a second
 * name of `file` itself: a power cut between the link and the unlink (moveIntoPlace) left it.
 * A live process's build in progress is never a name of `file`, so it is kept.
 */
/**
 * Tidying, never a reason to fail an open: a leftover the system will not remove now (Windows
 * refuses a name of a file another process has open) is tried again at the next open.
 */
function removeIfAllowed(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // left for the next open
  }
}

export function removeLeftoverBuilds(file: string, ownRunning: boolean): void {
  const prefix = `${basename(file)}.building-`;
  const database = statSync(file, { throwIfNoEntry: false });
  const isDatabase = (path: string) => {
    if (database === undefined || database.nlink < 2) return false;
    const entry = statSync(path, { throwIfNoEntry: false });
    return entry !== undefined && entry.ino === database.ino && entry.dev === database.dev;
  };
  for (const name of readdirSync(dirname(file))) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dirname(file), name);
    const pid = Number(/^(\d+)/.exec(name.slice(prefix.length))?.[1]);
    const stale = pid === process.pid ? !ownRunning : !isRunning(pid);
    if (stale || isDatabase(path)) removeIfAllowed(path);
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes the built file durable, then gives it its name. A link, not a rename: it never replaces a
 * database another process put there meanwhile (that one is kept, ours dropped). The directory is
 * synced so the new name survives a power cut.
 */
export function moveIntoPlace(aside: string, file: string): void {
  fsyncPath(aside, 'r+');
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  rmSync(aside, { force: true });
  fsyncPath(dirname(file), 'r');
}

function fsyncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
