import { writeSync } from 'node:fs';
import pino from 'pino';
import { logFileSize, type RotatedFile, rotateLogFiles } from './log-file-rotation';

type Sink = ReturnType<typeof pino.destination>;

/** Streams with lines not yet handed to their file: written synchronously if the process exits first. */
const unreleased = new Set<WeakRef<BatchedDestination>>();
process.on('exit', () => {
  for (const ref of unreleased) ref.deref()?.releaseSync();
});

/** How long a line may wait for others to share its write. */
const GATHER_MS = 10;
/** How long an exiting process keeps retrying a pipe whose reader is not reading (EAGAIN). */
const EXIT_WRITE_PATIENCE_MS = 2_000;

/**
 * Log lines of 10 ms handed to the file in one write. Each write to pino's destination is a system
 * call queued to libuv's pool (~15–25 µs of the event loop's time a line under load, a seventh of a
 * retrieve), and every request has its access line; a quiet node still sees a line 10 ms later.
 * Lines still waiting when the process exits are written synchronously.
 */
export class BatchedDestination {
  private pending = '';
  private readonly self = new WeakRef(this);
  /** Bytes handed to the sink and bytes it reports written: a flush is done when they meet. */
  private handed = 0;
  private written = 0;
  private readonly flushes: Array<(error?: Error) => void> = [];
  /** Bytes in the file being written, while a rotation watches its size. */
  private bytesInFile = 0;
  /** A rotated file's name is being opened again: a flush waits for it (nothing is left half done). */
  private reopening = false;

  /** With `rotation`, `sink` writes to that file, moved aside (and reopened) when it reaches its size. */
  constructor(
    private readonly sink: Sink,
    private readonly rotation?: RotatedFile,
  ) {
    if (rotation) this.bytesInFile = logFileSize(rotation.file);
    sink.on('write', (bytes: number) => {
      this.written += bytes;
      if (this.caughtUp()) this.settleFlushes();
    });
  }

  write(line: string): boolean {
    if (this.pending === '') {
      unreleased.add(this.self);
      setTimeout(() => this.release(), GATHER_MS).unref();
    }
    this.pending += line;
    return true;
  }

  /**
   * pino's `logger.flush(cb)`: everything written so far reaches the file, then `cb`. Not the
   * sink's own flush: with no minimum length it calls back at once, while its write is still in
   * libuv's pool (a test reading the file then missed the last lines).
   */
  flush(callback?: (error?: Error) => void): void {
    this.release();
    if (!callback) return;
    if (this.caughtUp()) {
      callback();
      return;
    }
    if (this.flushes.length === 0) this.sink.once('error', this.failFlushes);
    this.flushes.push(callback);
  }

  /**
   * At exit: what the sink still queues, then the lines gathered here, written by this thread. Not
   * handed to the sink: it would start an asynchronous write that an exiting process does not wait
   * for (the node's `stopped` line was lost that way under load).
   */
  releaseSync(): void {
    const lines = this.pending;
    this.pending = '';
    unreleased.delete(this.self);
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
    const lines = this.pending;
    this.pending = '';
    unreleased.delete(this.self);
    const bytes = Buffer.byteLength(lines);
    this.handed += bytes;
    this.sink.write(lines);
    if (this.rotation) this.rotateWhenFull(this.rotation, bytes);
  }

  /**
   * The batch that fills the file still goes to it (the sink's write in flight keeps its descriptor);
   * the sink reopens the file's name once that write is done. A move that fails is tried again
   * after another file's worth of lines.
   */
  private rotateWhenFull(rotation: RotatedFile, bytes: number): void {
    this.bytesInFile += bytes;
    if (this.bytesInFile < rotation.maxBytes) return;
    this.bytesInFile = 0;
    if (!rotateLogFiles(rotation.file, rotation.keep)) return;
    this.reopening = true;
    this.sink.once('ready', () => {
      this.reopening = false;
      if (this.caughtUp()) this.settleFlushes();
    });
    this.sink.reopen();
  }

  private caughtUp(): boolean {
    return this.written >= this.handed && !this.reopening;
  }

  private settleFlushes(): void {
    if (this.flushes.length === 0) return;
    this.sink.off('error', this.failFlushes);
    for (const callback of this.flushes.splice(0)) callback();
  }

  private readonly failFlushes = (error: Error): void => {
    for (const callback of this.flushes.splice(0)) callback(error);
  };
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
