import { writeSync } from 'node:fs';
import pino from 'pino';
import { logFileSize, type RotatedFile, rotateLogFiles } from './log-file-rotation';

type Sink = ReturnType<typeof pino.destination>;

/** Streams with lines not yet handed to their file: written synchronously if the process exits first. */
const unreleased = new Set<WeakRef<BatchedDestination>>();
process.on('exit', () => {
  for (const ref of unreleased) ref.deref()?.releaseSync();
});

/** How long a rotation waits before opening its new file again when the first try failed. */
const REOPEN_RETRY_MS = 1_000;
/** Lines kept waiting at most (characters) while the file cannot take them; more are dropped. */
const PENDING_MAX_CHARS = 16 * 1024 * 1024;
/** How long a line may wait for others to share its write. */
const GATHER_MS = 10;
/** How long an exiting process keeps retrying a pipe whose reader is not reading (EAGAIN). */
const EXIT_WRITE_PATIENCE_MS = 2_000;

/**
 * Log lines of 10 ms handed to the file in one write. Each write to pino's destination is a system
 * call queued to libuv's pool (~15–25 µs of the event loop's time a line under load, a seventh of a
 * retrieve), and every request has its access line; a quiet node still sees a line 10 ms later.
 * Lines still waiting when the process exits are written synchronously.
 *
 * A rotated file gets one write at a time: lines wait here while the sink's write is in flight (or
 * the file's name is being opened again) and go together when it is done. Lines queued inside the
 * sink would go to whichever file it has open when their turn comes, so the size could not be kept.
 *
 * A write that fails (a full disk: ENOSPC) does not stop the node: the lines go on to the sink, which
 * retries its failed write with the next and drops what passes its `maxLength` (logger.ts), until
 * the disk has room again; a flush meanwhile calls back with the error. At exit the sink's own
 * synchronous flush is skipped while writes fail: it retries a failing write for ever, and the
 * process hung there instead of exiting.
 */
export class BatchedDestination {
  private pending = '';
  /** The pending lines' gathering time is over: hand them when the sink can take them. */
  private due = false;
  private readonly self = new WeakRef(this);
  /** Bytes handed to the sink and bytes it reports written: a flush is done when they meet. */
  private handed = 0;
  private written = 0;
  /** Flushes waiting for the bytes written to reach `upTo`. */
  private readonly flushes: Array<{ upTo: number; callback: (error?: Error) => void }> = [];
  /** Bytes in the file being written, while a rotation watches its size. */
  private bytesInFile = 0;
  /** A rotated file's name is being opened (again): lines and flushes wait for it (nothing is left half done). */
  private opening = false;
  /** A rotation's failed open is to be tried again (once however many errors said so). */
  private openScheduled = false;
  /** The sink's last write failed (and no write has succeeded since): why. */
  private failing: Error | null = null;

  /** With `rotation`, `sink` writes to that file, moved aside (and reopened) before it would pass its size. */
  constructor(
    private readonly sink: Sink,
    private readonly rotation?: RotatedFile,
  ) {
    if (rotation) {
      this.bytesInFile = logFileSize(rotation.file);
      this.whenOpen();
    }
    sink.on('write', (bytes: number) => {
      this.written += bytes;
      this.failing = null;
      this.handOn();
      this.settleFlushes();
    });
    // Without a listener the failure was thrown, and the process ended (then hung: see above).
    sink.on('error', (error: Error) => {
      this.failing = error;
      this.failFlushes(error);
      // A rotation's new file could not be opened (no room for it): open it again later, or the
      // lines would wait for a 'ready' that never comes, even once the disk has room.
      if (this.opening && !this.openScheduled) {
        this.openScheduled = true;
        setTimeout(() => this.openAgain(), REOPEN_RETRY_MS).unref();
      }
      this.handOn();
    });
    // Dropped by the sink (its buffer full while writes fail): never to be written, so not waited for.
    sink.on('drop', (data: string | Buffer) => {
      this.written += Buffer.byteLength(data);
      this.handOn();
      this.settleFlushes();
    });
  }

  write(line: string): boolean {
    if (this.pending === '') {
      unreleased.add(this.self);
      setTimeout(() => this.release(), GATHER_MS).unref();
    }
    // Lines waiting on a file that cannot be written or opened are dropped past this, as the sink drops past its own.
    if (this.pending.length < PENDING_MAX_CHARS) this.pending += line;
    return true;
  }

  /**
   * pino's `logger.flush(cb)`: everything written so far reaches the file, then `cb`. Not the
   * sink's own flush: with no minimum length it calls back at once, while its write is still in
   * libuv's pool (a test reading the file then missed the last lines).
   */
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
  }

  /**
   * At exit: what the sink still queues, then the lines gathered here, written by this thread. Not
   * handed to the sink: it would start an asynchronous write that an exiting process does not wait
   * for (the node's `stopped` line was lost that way under load).
   */
  releaseSync(): void {
    const lines = this.pending;
    this.pending = '';
    this.due = false;
    unreleased.delete(this.self);
    if (this.failing) {
      // The sink's flushSync would retry its failing write for ever: the lines are lost, as the
      // ones before them (they are written if the disk freed up). Destroyed, so that pino's own
      // exit handler, which runs after this one, does not call it either.
      if (lines !== '') writeAllSync((this.sink as unknown as { fd: number }).fd, Buffer.from(lines));
      this.sink.destroy();
      return;
    }
    try {
      this.sink.flushSync();
    } catch {
      // The file was never opened (or is gone): nothing to save the lines to.
      return;
    }
    if (lines !== '') writeAllSync((this.sink as unknown as { fd: number }).fd, Buffer.from(lines));
  }

  private release(): void {
    if (this.pending === '') return;
    this.due = true;
    this.handOn();
  }

  /** Hands the due lines to the sink: all of them, or for a rotated file what fits once the sink is free. */
  private handOn(): void {
    if (!this.due || this.pending === '') return;
    let lines = this.pending;
    // While writes fail the lines go on to the sink, which keeps them up to its maxLength for its
    // next attempt, and no rotation starts: a reopen asked with a write in flight waits in the sink
    // for a write that succeeds, and the log stayed stopped once the disk had room again.
    if (this.rotation && !this.failing) {
      if (this.written < this.handed || this.opening) return; // called again when the sink is done
      lines = this.linesForFile(this.rotation);
      if (lines === '') return; // the file is being moved aside: called again when it is open
    }
    this.pending = this.pending.slice(lines.length);
    if (this.pending === '') {
      this.due = false;
      unreleased.delete(this.self);
    }
    const bytes = Buffer.byteLength(lines);
    this.handed += bytes;
    this.bytesInFile += bytes;
    this.sink.write(lines);
  }

  /**
   * The pending lines that fit in the file's size. None fit: the file is moved aside first (and none
   * are handed now), or, when the file is new or the move failed, as many as a file holds (at least
   * one line). A move that fails is tried again after another file's worth of lines.
   */
  private linesForFile(rotation: RotatedFile): string {
    const fitting = wholeLinesWithin(this.pending, rotation.maxBytes - this.bytesInFile);
    if (fitting !== '') return fitting;
    if (this.bytesInFile > 0) {
      this.bytesInFile = 0;
      if (rotateLogFiles(rotation.file, rotation.keep)) {
        this.whenOpen();
        this.sink.reopen();
        return '';
      }
    }
    const first = this.pending.indexOf('\n') + 1 || this.pending.length;
    return wholeLinesWithin(this.pending, rotation.maxBytes) || this.pending.slice(0, first);
  }

  /**
   * A rotation's open that failed, tried again. The failed try's 'ready' listeners go first — ours,
   * and the sink's own closing of the old file's descriptor: kept, each try would close that
   * descriptor once more when one succeeds, its number by then perhaps another file's or socket's.
   */
  private openAgain(): void {
    this.openScheduled = false;
    if (!this.opening) return;
    this.sink.removeAllListeners('ready');
    this.whenOpen();
    this.sink.reopen();
  }

  /** Lines for a rotated file wait until the sink has opened its name. */
  private whenOpen(): void {
    this.opening = true;
    this.sink.once('ready', () => {
      this.opening = false;
      this.handOn();
      this.settleFlushes();
    });
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

/** Writes all of `bytes` to `fd`, waiting out a full pipe (EAGAIN) for a while; gives up on any other error. */
function writeAllSync(fd: number, bytes: Buffer): void {
  const giveUpAt = Date.now() + EXIT_WRITE_PATIENCE_MS;
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > giveUpAt) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}
