import type { FastifyBaseLogger } from 'fastify';
import type { Engine } from '../../core/engine';
import { expirePoints } from '../../core/expiry/expire-points';
import { settlePendingEgifts } from '../../core/payments/egifts/send-egift';
import { remindExpiringBillingProfiles } from '../../core/payments/reminders/remind-expiring-billing-profiles';

export const EXPIRY_INTERVAL_MS = 3600_000;
/** How often eGifts whose charge the gateway reports late are asked about again. */
export const PENDING_EGIFT_INTERVAL_MS = 60_000;

/**
 * Background jobs of a node, one after the other, each failure logged without stopping the next:
 * at start and hourly, points expiry and the reminders for saved cards in their last month; every
 * minute, the eGifts still waiting for their charge's result. Returns the function that stops them.
 */
export function startJobs(engine: Engine, logger?: FastifyBaseLogger): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const settleEgifts = () =>
    settlePendingEgifts(engine)
      .then((result) => {
        if (result.settled > 0) logger?.info(result, 'pending eGifts settled');
        if (result.failed > 0) logger?.warn(result, 'some pending eGifts could not be checked; will retry');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'pending eGift check failed'));
  const hourly = () => {
    running = running
      .then(() => expirePoints(engine))
      .then((result) => {
        if (result.accounts > 0) logger?.info(result, 'points expired');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'points expiry failed'))
      .then(() => remindExpiringBillingProfiles(engine))
      .then((result) => {
        if (result.queued > 0) logger?.info(result, 'billing profile expiry reminders queued');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'billing profile reminders failed'))
      .then(settleEgifts);
  };
  const minutely = () => {
    running = running.then(settleEgifts);
  };
  const first = setTimeout(hourly, 1000);
  const timer = setInterval(hourly, EXPIRY_INTERVAL_MS);
  const egiftTimer = setInterval(minutely, PENDING_EGIFT_INTERVAL_MS);
  first.unref();
  timer.unref();
  egiftTimer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    clearInterval(egiftTimer);
    await running;
  };
}
