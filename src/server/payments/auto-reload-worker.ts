import { type AutoReloadReport, drainAutoReloads, onAutoReloadQueued, runDueAutoReloads } from '../../core/payments/auto-reload/auto-reloads';
import type { Engine } from '../../core/engine';
import type { MessagingLogger } from '../../core/messaging/ports';

export interface AutoReloadWorker {
  /** Runs a pass soon instead of at the next tick. */
  wake(): void;
  /** No more passes; resolves once the pass in flight has finished. */
  stop(): Promise<void>;
  /** Runs passes until one finds nothing due. */
  drain(): Promise<void>;
}

/**
 * The node's auto-reload worker (sibling of the message worker): one pass of runDueAutoReloads
 * every `intervalMs` (default 5 s) and right after an order queues a reload; never two passes at
 * once. A failed pass is logged and the next one tries again. The timer does not keep the process alive.
 */
export function startAutoReloadWorker(engine: Engine, options: { intervalMs?: number; logger?: MessagingLogger | undefined } = {}): AutoReloadWorker {
  const intervalMs = options.intervalMs ?? 5000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let wakeRequested = false;
  let tail: Promise<unknown> = Promise.resolve();

  const pass = (): Promise<AutoReloadReport> => {
    const run = tail.then(() => runDueAutoReloads(engine));
    tail = run.catch(() => undefined);
    return run;
  };
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = true;
      wakeRequested = false;
      pass()
        .then((report) => {
          if (report.processed > 0) options.logger?.info({ autoReloads: report }, 'auto reloads processed');
        })
        .catch((error: unknown) => options.logger?.error({ err: error }, 'auto reload pass failed'))
        .finally(() => {
          running = false;
          schedule(wakeRequested ? 0 : intervalMs);
        });
    }, delayMs);
    timer.unref();
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      // A pass is under way; run another as soon as it ends.
      wakeRequested = true;
      return;
    }
    if (timer) clearTimeout(timer);
    schedule(0);
  };
  const unsubscribe = onAutoReloadQueued(engine, wake);
  schedule(0);

  return {
    wake,
    async stop() {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      timer = undefined;
      await tail;
    },
    async drain() {
      await tail;
      const run = tail.then(() => drainAutoReloads(engine));
      tail = run.catch(() => undefined);
      await run;
    },
  };
}
