import type { Engine } from '../engine';
import { type PollingWorker, startPollingWorker } from '../workers/polling-worker';
import { type DeliveryOptions, deliverDueMessages } from './deliver';
import { type MessageTransports, type MessagingLogger, silentLogger } from './ports';

export interface MessageWorkerOptions extends Omit<DeliveryOptions, 'logger'> {
  /** Pause between two passes (default 500 ms). */
  intervalMs?: number;
  logger?: MessagingLogger;
}

/** The outbox worker: wake, stop, drain (see PollingWorker). */
export type MessageWorker = PollingWorker;

/**
 * Delivers the outbox in the background: one pass (deliverDueMessages) every `intervalMs`,
 * never two passes of this worker at once. A pass that throws (database unavailable) is logged
 * and the next one tries again. The timer does not keep the process alive.
 */
export function startMessageWorker(engine: Engine, transports: MessageTransports, options: MessageWorkerOptions = {}): MessageWorker {
  const logger = options.logger ?? silentLogger;
  const delivery: DeliveryOptions = { logger };
  if (options.batchSize !== undefined) delivery.batchSize = options.batchSize;
  if (options.policy !== undefined) delivery.policy = options.policy;
  return startPollingWorker({
    pass: (stopping) => deliverDueMessages(engine, transports, engine.clock.now(), { ...delivery, stopping }),
    idle: (report) => report.sent + report.retrying + report.failed === 0,
    intervalMs: options.intervalMs ?? 500,
    onError: (error) => logger.error({ err: error }, 'message delivery pass failed'),
  });
}
