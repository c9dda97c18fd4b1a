import { close, constants, fstatSync, mkdir, mkdirSync, open, openSync, write, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isatty } from 'node:tty';
import { type RotatedFile, rotateLogFiles } from './log-file-rotation';

/** Where a log's lines go: a file, moved aside at its size, or standard output. */
export type LogTarget = RotatedFile | 'stdout';

/** Destinations with lines not yet written: written synchronously if the process exits first. */
const unwritten = new Set<WeakRef<BatchedDestination>>();
process.on('exit', () => {
  for (const ref of unwritten) ref.deref()?.writeOutSync();
});

/** How long before a file that could not be opened, or a write that failed (a full disk), is tried again. */
const RETRY_MS = 1_000;
/** How long before a write to a pipe whose reader is not reading (EAGAIN) is tried again. */
const FULL_PIPE_RETRY_MS = 100;
/** Lines kept waiting at most (characters) while they cannot be written; more are dropped. */
const PENDING_MAX_CHARS = 16 * 1024 * 1024;
/** How long a line may wait for others to share its write. */
const GATHER_MS = 10;
/** How long an exiting process keeps retrying a pipe whose reader is not reading (EAGAIN). */
const EXIT_WRITE_PATIENCE_MS = 2_000;
/** A log file is never opened to append: each write says where it goes, so the exit can write a write under way again. */
const OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT;
const FILE_MODE = 0o600;

/**
 * Log lines of 10 ms written in one write. Each write is a system call (~15–25 µs of the event
 * loop's time a line under load, a seventh of a retrieve), and every request has its access line;
 * a quiet node still sees a line 10 ms later. Lines still waiting when the process exits are
 * written synchronously.
 *
 * One write at a time: lines wait here while a write is under way (or a rotated file's name is being
 * opened again) and go together when it is done, so a rotated file's size is kept and the order of
 * the lines too. A file is written from libuv's pool (a slow disk does not hold the event loop), at
 * the place each write says: at exit the write under way, which may not have reached the file (or
 * may land after this thread's writes), is written again at its place, then the lines after it;
 * the place follows the file's size, read before each batch (emptied or appended to from outside).
 * Standard output is written by this thread, non-blocking: a reader that stops reading fails a write
 * with EAGAIN, tried again later while lines wait (up to their cap), and at exit for 2 s at most. A
 * terminal (blocking) is written from the pool, as a file is.
 *
 * A write that fails (a full disk: ENOSPC) does not stop the node: it is tried again every second
 * while lines wait (dropped past their cap), until the disk has room again; a flush meanwhile calls
 * back with the error. At exit such lines are tried once, and lost if they fail.
 */
export class BatchedDestination {
  private pending = '';
  /** The pending lines' gathering time is over: write them when the last write is done. */
  private due = false;
  private readonly self = new WeakRef(this);
  /** Bytes taken to be written and bytes written: a flush is done when they meet. */
  private handed = 0;
  private written = 0;
  /** Flushes waiting for the bytes written to reach `upTo`. */
  private readonly flushes: Array<{ upTo: number; callback: (error?: Error) => void }> = [];
  /** What is written to: -1 while a file was never opened; while a rotation opens the new file, the old one. */
  private fd = -1;
  /** Where the next byte goes in the file; null for standard output or a device (`/dev/full`). */
  private position: number | null = null;
  /** The bytes of the write under way, or of a failed one to be tried again: later lines wait for them. */
  private inFlight: Buffer | null = null;
  /** Bytes in the file being written, while a rotation watches its size. */
  private bytesInFile = 0;
  /** A file's name is being opened (again): lines and flushes wait for it (nothing is left half done). */
  private opening = false;
  /** The last write or open failed (and none has succeeded since): why. */
  private failing: Error | null = null;
  /** The retry's timer: unref'd, unless a flush waits on what it will write (pino's flush keeps a script alive). */
  private retryTimer: NodeJS.Timeout | null = null;
  /**
   * Standard output written by this thread (a pipe or socket libuv made non-blocking, a file); a
   * terminal stays blocking, and one paused (Ctrl-S, a stalled ssh session) would hold the event
   * loop, so it is written from libuv's pool as files are.
   */
  private readonly writesHere: boolean;

  constructor(private readonly target: LogTarget) {
    this.writesHere = target === 'stdout' && !isatty(1);
    if (target === 'stdout') {
      // Node's stream for standard output, once made, has made a pipe or socket non-blocking (libuv).
      this.fd = process.stdout.fd;
      return;
    }
    // Synchronously, once at start: lines logged at once then have their file (and do at an exit).
    try {
      mkdirSync(dirname(target.file), { recursive: true });
      this.opened(openSync(target.file, OPEN_FLAGS, FILE_MODE));
    } catch (error) {
      this.opening = true;
      this.failed(error as NodeJS.ErrnoException);
    }
  }

  write(line: string): boolean {
    if (this.pending === '') {
      unwritten.add(this.self);
      setTimeout(() => this.release(), GATHER_MS).unref();
    }
    // Lines waiting on a file that cannot be written or opened (or a pipe not read) are dropped past this.
    if (this.pending.length < PENDING_MAX_CHARS) this.pending += line;
    return true;
  }

  /** pino's `logger.flush(cb)`: everything logged so far reaches the file, then `cb`. */
  flush(callback?: (error?: Error) => void): void {
    const upTo = this.handed + Buffer.byteLength(this.pending);
    this.release();
    if (!callback) return;
    if (this.writtenUpTo(upTo)) {
      callback();
      return;
    }
    if (this.failing) {
      callback(this.failing);
      return;
    }
    this.flushes.push({ upTo, callback });
    this.retryTimer?.ref();
  }

  /**
   * At exit: the write under way, then the lines gathered, written by this thread in that order (an
   * exiting process does not wait for libuv's pool). A file's write under way is written again at
   * its place: if the pool's write lands too, it writes the same bytes there. Given up on at the first
   * failure, or after 2 s of a pipe not read: those lines are dropped, the process exits.
   */
  writeOutSync(): void {
    unwritten.delete(this.self);
    const lines = this.pending;
    this.pending = '';
    this.due = false;
    const parts = [this.inFlight, lines === '' ? null : Buffer.from(lines)];
    this.inFlight = null;
    let position = this.position;
    const giveUpAt = Date.now() + EXIT_WRITE_PATIENCE_MS;
    for (const part of parts) {
      if (!part || this.fd < 0) continue;
      if (!writeAllSync(this.fd, part, position, giveUpAt)) return;
      if (position !== null) position += part.length;
    }
  }

  private release(): void {
    if (this.pending === '') return;
    this.due = true;
    this.handOn();
  }

  /** Writes the due lines: all of them, or for a file what fits, once the last write is done. */
  private handOn(): void {
    if (!this.due || this.pending === '' || this.inFlight || this.opening) return;
    let lines = this.pending;
    if (this.target !== 'stdout') {
      this.followFileSize();
      lines = this.linesForFile(this.target);
      if (lines === '') return; // the file is being moved aside: called again when it is open
    }
    this.pending = this.pending.slice(lines.length);
    if (this.pending === '') this.due = false;
    this.inFlight = Buffer.from(lines);
    this.handed += this.inFlight.length;
    this.bytesInFile += this.inFlight.length;
    this.writeInFlight();
  }

  private writeInFlight(): void {
    const bytes = this.inFlight!;
    if (!this.writesHere) {
      write(this.fd, bytes, 0, bytes.length, this.position, (error, n) => (error ? this.failed(error) : this.wrote(n)));
      return;
    }
    let n: number;
    try {
      n = writeSync(this.fd, bytes);
    } catch (error) {
      this.failed(error as NodeJS.ErrnoException);
      return;
    }
    this.wrote(n);
  }

  private wrote(n: number): void {
    const bytes = this.inFlight!;
    this.written += n;
    if (this.position !== null) this.position += n;
    this.failing = null;
    if (n < bytes.length) {
      this.inFlight = bytes.subarray(n);
      this.writeInFlight();
      return;
    }
    this.inFlight = null;
    if (this.pending === '') unwritten.delete(this.self);
    this.settleFlushes();
    this.handOn();
  }

  private failed(error: NodeJS.ErrnoException): void {
    // Standard output's reader is gone for good: its lines are dropped (counted as written, for flushes).
    if (error.code === 'EPIPE' && this.inFlight) {
      this.wrote(this.inFlight.length);
      return;
    }
    if (error.code !== 'EAGAIN') {
      this.failing = error;
      this.failFlushes(error);
    }
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = null;
        if (this.opening) this.openFile();
        else if (this.inFlight) this.writeInFlight();
      },
      error.code === 'EAGAIN' ? FULL_PIPE_RETRY_MS : RETRY_MS,
    );
    if (this.flushes.length === 0) this.retryTimer.unref();
  }

  /**
   * The file's size before each batch (once in 10 ms at most): emptied from outside (`: > node.log`,
   * logrotate's copytruncate) the next line goes at its start, not after a run of NUL bytes where
   * the old end was; lines someone appended are not written over.
   */
  private followFileSize(): void {
    if (this.position === null || this.fd < 0) return;
    const size = fstatSync(this.fd).size;
    if (size === this.position) return;
    this.position = size;
    this.bytesInFile = size;
  }

  /**
   * The pending lines that fit in the file's size. None fit: the file is moved aside first (and none
   * are written now), or, when the file is new or the move failed, as many as a file holds (at least
   * one line). A move that fails is tried again after another file's worth of lines.
   */
  private linesForFile(rotation: RotatedFile): string {
    const fitting = wholeLinesWithin(this.pending, rotation.maxBytes - this.bytesInFile);
    if (fitting !== '') return fitting;
    if (this.bytesInFile > 0) {
      this.bytesInFile = 0;
      if (rotateLogFiles(rotation.file, rotation.keep)) {
        this.openFile();
        return '';
      }
    }
    const first = this.pending.indexOf('\n') + 1 || this.pending.length;
    return wholeLinesWithin(this.pending, rotation.maxBytes) || this.pending.slice(0, first);
  }

  /** Opens the file's name (again, after a rotation or a failed try) from libuv's pool; the old file is written until it is open. */
  private openFile(): void {
    const { file } = this.target as RotatedFile;
    this.opening = true;
    mkdir(dirname(file), { recursive: true }, (mkdirError) => {
      if (mkdirError) return this.failed(mkdirError);
      open(file, OPEN_FLAGS, FILE_MODE, (error, fd) => (error ? this.failed(error) : this.opened(fd)));
    });
  }

  private opened(fd: number): void {
    const stats = fstatSync(fd);
    if (this.fd >= 0) close(this.fd, () => undefined); // the file moved aside; nothing is under way (one write at a time)
    this.fd = fd;
    this.position = stats.isFile() ? stats.size : null;
    this.bytesInFile = stats.size;
    this.opening = false;
    this.failing = null;
    this.settleFlushes();
    this.handOn();
  }

  private writtenUpTo(upTo: number): boolean {
    return this.written >= upTo && !this.opening;
  }

  private settleFlushes(): void {
    if (this.flushes.length === 0) return;
    const settled = this.flushes.filter((flush) => this.writtenUpTo(flush.upTo));
    if (settled.length === 0) return;
    this.flushes.splice(0, settled.length);
    for (const flush of settled) flush.callback();
  }

  private readonly failFlushes = (error: Error): void => {
    for (const flush of this.flushes.splice(0)) flush.callback(error);
  };
}

/** The longest run of whole lines at the start of `text` that takes at most `room` bytes ('' when none). */
function wholeLinesWithin(text: string, room: number): string {
  if (Buffer.byteLength(text) <= room) return text;
  let end = 0;
  let bytes = 0;
  for (let next = text.indexOf('\n'); next !== -1; next = text.indexOf('\n', end)) {
    bytes += Buffer.byteLength(text.slice(end, next + 1));
    if (bytes > room) break;
    end = next + 1;
  }
  return text.slice(0, end);
}

/**
 * Writes all of `bytes` to `fd` (at `position`, unless null), waiting out a full pipe (EAGAIN) until
 * `giveUpAt`; gives up on any other error. Whether it wrote them all.
 */
function writeAllSync(fd: number, bytes: Buffer, position: number | null, giveUpAt: number): boolean {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset, position === null ? null : position + offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > giveUpAt) return false;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
  return true;
}
