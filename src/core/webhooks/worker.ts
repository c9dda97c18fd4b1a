import { type Engine, ownsProgramData } from '../engine';
import { type MessagingLogger, silentLogger } from '../messaging/ports';
import { type PollingWorker, startPollingWorker } from '../workers/polling-worker';
import { deliverDueWebhooks, type LanesInFlight, type WebhookDeliveryOptions } from './deliver';

export interface WebhookWorkerOptions extends Omit<WebhookDeliveryOptions, 'logger' | 'lanesInFlight'> {
  /** Pause between two passes (default 1 s). */
  intervalMs?: number;
  logger?: MessagingLogger;
}

/** Most rounds drain() runs of passes and then lanes that outlived them. */
const MAX_DRAIN_ROUNDS = 100;

/**
 * Delivers the webhook outbox in the background, one pass every `intervalMs`; null on a replica
 * node (central delivers for the stores paired with it). The timer does not keep the process alive.
 * An endpoint's lane may outlive its pass (a slow or hung receiver): later passes skip that
 * endpoint and serve the others; stop() and drain() wait for such lanes too.
 */
export function startWebhookWorker(engine: Engine, options: WebhookWorkerOptions = {}): PollingWorker | null {
  if (!ownsProgramData(engine)) return null;
  const logger = options.logger ?? silentLogger;
  const { intervalMs, ...delivery } = options;
  const lanesInFlight: LanesInFlight = new Map();
  const lanesDone = () => Promise.all(lanesInFlight.values());
  const poller = startPollingWorker({
    pass: () => deliverDueWebhooks(engine, { ...delivery, logger, lanesInFlight }),
    idle: (report) => report.succeeded + report.retrying + report.failed === 0,
    intervalMs: intervalMs ?? 1_000,
    onError: (error) => logger.error({ err: error }, 'webhook delivery pass failed'),
  });
  return {
    wake: () => poller.wake(),
    async stop() {
      await poller.stop();
      await lanesDone();
    },
    async drain() {
      for (let round = 0; round < MAX_DRAIN_ROUNDS; round += 1) {
        await poller.drain();
        if (lanesInFlight.size === 0) return;
        await lanesDone();
      }
    },
  };
}
