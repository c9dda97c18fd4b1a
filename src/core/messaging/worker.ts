import type { Engine } from '../engine';
import { type DeliveryOptions, type DeliveryReport, deliverDueMessages } from './deliver';
import { type MessageTransports, type MessagingLogger, silentLogger } from './ports';

export interface MessageWorkerOptions extends Omit<DeliveryOptions, 'logger'> {
  /** Pause between two passes (default 500 ms). */
  intervalMs?: number;
  logger?: MessagingLogger;
}

export interface MessageWorker {
  /** Runs a pass soon (after the one in flight, if any) instead of at the next tick. */
  wake(): void;
  /** No more passes; resolves once the pass in flight (if any) has finished. */
  stop(): Promise<void>;
  /** Runs passes until one finds nothing due (for tests, and before a planned shutdown). */
  drain(): Promise<void>;
}

/** Most passes drain() runs, so a policy with no backoff cannot spin forever. */
const MAX_DRAIN_PASSES = 1_000;

/**
 * Delivers the outbox in the background: one pass (deliverDueMessages) every `intervalMs`,
 * never two passes of this worker at once. A pass that throws (database unavailable) is logged
 * and the next one tries again. The timer does not keep the process alive.
 */
export function startMessageWorker(engine: Engine, transports: MessageTransports, options: MessageWorkerOptions = {}): MessageWorker {
  const intervalMs = options.intervalMs ?? 500;
  const logger = options.logger ?? silentLogger;
  const delivery: DeliveryOptions = { logger };
  if (options.batchSize !== undefined) delivery.batchSize = options.batchSize;
  if (options.policy !== undefined) delivery.policy = options.policy;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeRequested = false;
  // Passes run one after the other, whoever asked for them (the timer, wake, drain).
  let tail: Promise<unknown> = Promise.resolve();

  const pass = (): Promise<DeliveryReport> => {
    const run = tail.then(() => deliverDueMessages(engine, transports, engine.clock.now(), delivery));
    tail = run.catch(() => undefined);
    return run;
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      wakeRequested = false;
      pass()
        .catch((error: unknown) => logger.error({ err: error }, 'message delivery pass failed'))
        .finally(() => schedule(wakeRequested ? 0 : intervalMs));
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
        const report = await pass();
        if (report.sent + report.retrying + report.failed === 0) return;
      }
      await tail;
    },
  };
}
