import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, rmSync } from 'node:fs';
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
  return file !== '' && file !== ':memory:' && !file.startsWith('file:') && !existsSync(file) && existsSync(dirname(file));
}

/** The aside file of this process; the pid tells a crashed build's leftover from a running one. */
export function asideFileOf(file: string): string {
  return `${file}.building-${process.pid}`;
}

/**
 * Removes what builds that did not finish left beside `file` (with their -journal, -wal, -shm):
 * those of processes that are gone, and this process's own unless `keep` names it (building now).
 */
export function removeLeftoverBuilds(file: string, keep: ReadonlySet<string>): void {
  const prefix = `${basename(file)}.building-`;
  for (const name of readdirSync(dirname(file))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)/.exec(name.slice(prefix.length))?.[1]);
    const aside = join(dirname(file), `${prefix}${pid}`);
    if (keep.has(aside)) continue;
    if (pid === process.pid || !isRunning(pid)) rmSync(join(dirname(file), name), { force: true });
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
