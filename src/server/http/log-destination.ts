import pino from 'pino';

type Sink = ReturnType<typeof pino.destination>;

/** Streams with lines not yet handed to their file: written synchronously if the process exits first. */
const unreleased = new Set<WeakRef<BatchedDestination>>();
process.on('exit', () => {
  for (const ref of unreleased) ref.deref()?.releaseSync();
});

/** How long a line may wait for others to share its write. */
const GATHER_MS = 10;

/**
 * Log lines of 10 ms handed to the file in one write. Each write to pino's destination is a system
 * call queued to libuv's pool (~15–25 µs of the event loop's time a line under load, a seventh of a
 * retrieve), and every request has its access line; a quiet node still sees a line 10 ms later.
 * Lines still waiting when the process exits are written synchronously.
 */
export class BatchedDestination {
  private pending = '';
  private readonly self = new WeakRef(this);

  constructor(private readonly sink: Sink) {}

  write(line: string): boolean {
    if (this.pending === '') {
      unreleased.add(this.self);
      setTimeout(() => this.release(), GATHER_MS).unref();
    }
    this.pending += line;
    return true;
  }

  /** pino's `logger.flush(cb)`: everything written so far reaches the file, then `cb`. */
  flush(callback?: (error?: Error) => void): void {
    this.release();
    this.sink.flush(callback);
  }

  releaseSync(): void {
    this.release();
    try {
      this.sink.flushSync();
    } catch {
      // The file was never opened (or is gone): nothing to save the lines to.
    }
  }

  private release(): void {
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    unreleased.delete(this.self);
    this.sink.write(lines);
  }
}
