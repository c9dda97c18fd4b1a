import { type Engine, ownsProgramData } from '../engine';
import { type MessagingLogger, silentLogger } from '../messaging/ports';
import { type PollingWorker, startPollingWorker } from '../workers/polling-worker';
import { deliverDueWebhooks, type WebhookDeliveryOptions } from './deliver';

export interface WebhookWorkerOptions extends Omit<WebhookDeliveryOptions, 'logger'> {
  /** Pause between two passes (default 1 s). */
  intervalMs?: number;
  logger?: MessagingLogger;
}

/**
 * Delivers the webhook outbox in the background, one pass every `intervalMs`; null on a replica
 * node (central delivers for the stores paired with it). The timer does not keep the process alive.
 */
export function startWebhookWorker(engine: Engine, options: WebhookWorkerOptions = {}): PollingWorker | null {
  if (!ownsProgramData(engine)) return null;
  const logger = options.logger ?? silentLogger;
  const { intervalMs, ...delivery } = options;
  return startPollingWorker({
    pass: () => deliverDueWebhooks(engine, { ...delivery, logger }),
    idle: (report) => report.succeeded + report.retrying + report.failed === 0,
    intervalMs: intervalMs ?? 1_000,
    onError: (error) => logger.error({ err: error }, 'webhook delivery pass failed'),
  });
}
