import type { Engine } from '../../core/engine';
import type { MessagingLogger } from '../../core/messaging/ports';
import { onAutoReloadQueued, runDueAutoReloads } from '../../core/payments/auto-reload/auto-reloads';
import { type PollingWorker, startPollingWorker } from '../../core/workers/polling-worker';

export type AutoReloadWorker = PollingWorker;

/**
 * The node's auto-reload worker (sibling of the message worker): one pass of runDueAutoReloads
 * every `intervalMs` (default 5 s) and right after an order queues a reload; never two passes at
 * once. A failed pass is logged and the next one tries again. The timer does not keep the process alive.
 */
export function startAutoReloadWorker(engine: Engine, options: { intervalMs?: number; logger?: MessagingLogger | undefined } = {}): AutoReloadWorker {
  const worker = startPollingWorker({
    pass: () => runDueAutoReloads(engine),
    idle: (report) => report.processed === 0,
    intervalMs: options.intervalMs ?? 5000,
    onReport: (report) => {
      if (report.processed > 0) options.logger?.info({ autoReloads: report }, 'auto reloads processed');
    },
    onError: (error) => options.logger?.error({ err: error }, 'auto reload pass failed'),
  });
  const unsubscribe = onAutoReloadQueued(engine, () => worker.wake());
  return {
    ...worker,
    stop() {
      unsubscribe();
      return worker.stop();
    },
  };
}
