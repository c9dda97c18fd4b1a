import { renameSync, rmSync, statSync } from 'node:fs';

/**
 * How big a log file may grow and how many older ones are kept beside it (`node.log.1` the newest).
 * The desktop app logs to a file on a till that may run for years: without a limit its log only grows.
 */
export interface LogRotation {
  maxBytes: number;
  keep: number;
}

/** A log file and the rotation that watches it. */
export interface RotatedFile extends LogRotation {
  file: string;
}

/** 10 MB a file, five older ones: at most ~60 MB of a till's disk, weeks of a busy counter's lines. */
export const DEFAULT_LOG_ROTATION: LogRotation = { maxBytes: 10 * 1024 * 1024, keep: 5 };

/** The file's size now (0 when it does not exist yet). */
export function logFileSize(file: string): number {
  return exists(file) ? statSync(file).size : 0;
}

/**
 * Moves `file` to `file.1`, `file.1` to `file.2` … dropping the oldest beyond `keep`. A writer with
 * the file open keeps writing to what is now `file.1` until it reopens `file`. Best effort: a name
 * that cannot be moved (permissions, a Windows handle) leaves the log as it is, to try next time.
 */
export function rotateLogFiles(file: string, keep: number): boolean {
  try {
    rmSync(`${file}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) {
      if (exists(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    }
    // The file deleted from outside (its writer kept writing to nothing): nothing to move, a fresh one is opened.
    if (exists(file)) renameSync(file, `${file}.1`);
    return true;
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
