/** What the node's background workers (outbox delivery, auto reloads) offer their owner. */
export interface PollingWorker {
  /** Runs a pass soon (after the one in flight, if any) instead of at the next tick. */
  wake(): void;
  /** No more passes; resolves once the pass in flight (if any) has finished. */
  stop(): Promise<void>;
  /** Runs passes until one finds nothing to do (for tests, and before a planned shutdown). */
  drain(): Promise<void>;
}

export interface PollingWorkerOptions<R> {
  /**
   * One pass over whatever is due. `stopping()` turns true once stop() was called: a pass of many
   * slow items (messages during a mail outage) ends after the one in hand rather than make the
   * stop wait for all of them (a supervisor would kill the node mid-send).
   */
  pass: (stopping: () => boolean) => Promise<R>;
  /** True when the pass found nothing to do: drain() stops there. */
  idle: (report: R) => boolean;
  /** Pause between two passes. */
  intervalMs: number;
  /** Called with every report (log what was done). */
  onReport?: (report: R) => void;
  /** Called when a pass throws (database unavailable…); the next pass tries again. */
  onError: (error: unknown) => void;
}

/** Most passes drain() runs, so a pass that always finds work cannot spin forever. */
const MAX_DRAIN_PASSES = 1_000;

/**
 * Runs `pass` every `intervalMs` and on wake(), never two passes at once, whoever asks for them
 * (the timer, wake, drain). The timer does not keep the process alive.
 */
export function startPollingWorker<R>(options: PollingWorkerOptions<R>): PollingWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeRequested = false;
  let tail: Promise<unknown> = Promise.resolve();

  const pass = (): Promise<R> => {
    const run = tail.then(() => options.pass(() => stopped));
    tail = run.catch(() => undefined);
    return run;
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      wakeRequested = false;
      pass()
        .then((report) => options.onReport?.(report))
        .catch(options.onError)
        .finally(() => schedule(wakeRequested ? 0 : options.intervalMs));
    }, delayMs);
    timer.unref();
  };

  schedule(0);

  return {
    wake() {
      if (stopped) return;
      if (timer) {
        clearTimeout(timer);
        schedule(0);
      } else {
        // A timed pass is running; run another as soon as it ends.
        wakeRequested = true;
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await tail;
    },
    async drain() {
      for (let i = 0; i < MAX_DRAIN_PASSES && !stopped; i++) {
        if (options.idle(await pass())) return;
      }
      await tail;
    },
  };
}
