import type { FastifyBaseLogger } from 'fastify';
import { type Engine, isChainCentral, ownsProgramData } from '../../core/engine';
import { purgeExpiredBarcodeTokens } from '../../core/customers/purge-expired-barcode-tokens';
import { compactChangeLog } from '../../core/sync/central/compact-change-log';
import { pruneAnsweredEvents } from '../../core/sync/outbox/prune-answered-events';
import { expirePoints } from '../../core/expiry/expire-points';
import { sendScheduledEgifts } from '../../core/payments/egifts/send-scheduled-egifts';
import { settlePendingEgifts } from '../../core/payments/egifts/settle-pending-egifts';
import { detachQueuedCards } from '../../core/payments/billing-profiles/detach-cards';
import { demoteTiers } from '../../core/rules/tiers/demote-tiers';
import { RECONCILE_INTERVAL_MS, reconcileCharges } from '../../core/payments/reconcile/reconcile-charges';
import { finishLostPaybacks } from '../../core/payments/pay-back/finish-lost-paybacks';
import { remindExpiringBillingProfiles } from '../../core/payments/reminders/remind-expiring-billing-profiles';
import { closeStaleSessions } from '../../core/onscreen/close-stale-sessions';
import { forgetOldImportFiles } from '../../core/import/import-jobs';

export const EXPIRY_INTERVAL_MS = 3600_000;
/** How often eGifts whose charge the gateway reports late are asked about again. */
export const PENDING_EGIFT_INTERVAL_MS = 60_000;

/** How often charges whose outcome the node does not know (created after a 503, pending) are asked of the gateway. */
export const RECONCILE_CHARGES_INTERVAL_MS = RECONCILE_INTERVAL_MS;

/**
 * Background jobs of a node, one after the other, each failure logged without stopping the next:
 * at start and hourly, where the program's data is owned (a standalone store, central), points
 * expiry, tier demotion and the reminders for saved cards in their last month; on every node, the
 * purge of app barcodes a day past their expiry (each node purges its own copies), the files of
 * member imports a day old (import-jobs.ts) and, on a
 * chain's central node, the compaction of its sync log (on a store, the pruning of the events
 * central answered long ago from its outbox); where the program's data is owned, every
 * minute, the eGifts still waiting for their charge's result and the scheduled ones whose send date came, and the saved cards of erased customers
 * still to detach at the gateway; every 5 minutes (and at start), the
 * reconciliation of charges whose gateway answer was lost or is still pending, then the card
 * pay-backs whose refund's answer was lost. A paired store
 * runs only the purge and its outbox's pruning. Returns the function that stops them.
 */
export function startJobs(engine: Engine, logger?: FastifyBaseLogger): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopping = false;
  const owner = ownsProgramData(engine);
  // Between batches of the barcode purge, windows of the log's compaction and pages of the outbox's pruning: SQLite's statements hold the event loop, requests go first.
  const letRequestsIn = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return !stopping;
  };
  const settleEgifts = () =>
    settlePendingEgifts(engine)
      .then((result) => {
        if (result.settled > 0) logger?.info(result, 'pending eGifts settled');
        if (result.failed > 0) logger?.warn(result, 'some pending eGifts could not be checked; will retry');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'pending eGift check failed'))
      .then(() => sendScheduledEgifts(engine))
      .then((result) => {
        if (result.sent > 0) logger?.info(result, 'scheduled eGifts sent');
        if (result.failed > 0) logger?.warn(result, 'some scheduled eGifts could not be sent; will retry');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'scheduled eGift sending failed'));
  const reconcile = () =>
    reconcileCharges(engine)
      .then((result) => {
        if (result.succeeded + result.declined + result.pending + result.failed > 0) logger?.info(result, 'payment charges reconciled');
        if (result.refused.length > 0) logger?.warn({ chargeIds: result.refused }, 'paid reloads not credited: the program switched its quick-pay currency since; staff must refund or switch back');
        if (result.paidWithoutGift.length > 0) logger?.warn({ chargeIds: result.paidWithoutGift }, 'paid eGift charges without a gift (the buyer got a 503): a retry with the same key sends it; else staff must refund');
        if (result.errors > 0) logger?.warn(result, 'some payment charges could not be reconciled; will retry');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'payment charge reconciliation failed'))
      .then(() => finishLostPaybacks(engine))
      .then((result) => {
        if (result.paid + result.returned > 0) logger?.info(result, 'card pay-backs whose refund answer was lost finished');
        if (result.stuck.length > 0) logger?.warn({ paybackIds: result.stuck }, 'card pay-backs unfinished for over a day (the gateway still cannot be reached): staff can finish them from the customer\'s page');
        else if (result.waiting + result.errors > 0) logger?.warn(result, 'some card pay-backs could not be finished; will retry');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'finishing card pay-backs failed'));
  // Each step logs its own failure, so the chain never rejects.
  const programHourly = () =>
    Promise.resolve()
      .then(() => expirePoints(engine, letRequestsIn))
      .then((result) => {
        if (result.accounts > 0) logger?.info(result, 'points expired');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'points expiry failed'))
      .then(() => demoteTiers(engine))
      .then((result) => {
        if (result.demoted > 0) logger?.info(result, 'members moved down a tier');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'tier demotion failed'))
      .then(() => remindExpiringBillingProfiles(engine))
      .then((result) => {
        if (result.queued > 0) logger?.info(result, 'billing profile expiry reminders queued');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'billing profile reminders failed'))
      .then(settleEgifts)
      .then(reconcile);
  const hourly = () => {
    running = running
      .then(() => (owner ? programHourly() : undefined))
      .then(() => closeStaleSessions(engine, letRequestsIn))
      .then((closed) => {
        if (closed > 0) logger?.info({ closed }, 'check-ins left open for 12 hours closed');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'closing stale check-ins failed'))
      .then(() => purgeExpiredBarcodeTokens(engine, letRequestsIn))
      .then((removed) => {
        if (removed > 0) logger?.info({ removed }, 'expired app barcodes removed');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'expired app barcode purge failed'))
      // A member import's file is kept a day (core/import/import-jobs.ts, FILE_KEPT_MS).
      .then(() => forgetOldImportFiles(engine))
      .then((dropped) => {
        if (dropped > 0) logger?.info({ dropped }, 'member import files past their day dropped');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'dropping old member import files failed'))
      .then(() => (isChainCentral(engine) ? compactChangeLog(engine.db, letRequestsIn) : 0))
      .then((removed) => {
        if (removed > 0) logger?.info({ removed }, 'superseded changes removed from the sync log');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'sync log compaction failed'))
      .then(() => (isChainCentral(engine) ? 0 : pruneAnsweredEvents(engine, letRequestsIn)))
      .then((removed) => {
        if (removed > 0) logger?.info({ removed }, 'answered events removed from the sync outbox');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'sync outbox pruning failed'));
  };
  const detachCards = () =>
    detachQueuedCards(engine)
      .then((result) => {
        if (result.detached > 0) logger?.info(result, 'saved cards of erased customers detached at the gateway');
        if (result.failed > 0) logger?.warn(result, 'some saved cards could not be detached at the gateway; will retry');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'detaching saved cards failed'));
  const minutely = () => {
    running = running.then(settleEgifts).then(detachCards);
  };
  const first = setTimeout(hourly, 1000);
  const timer = setInterval(hourly, EXPIRY_INTERVAL_MS);
  // Payments are the program's: a paired store leaves them to central.
  const egiftTimer = owner ? setInterval(minutely, PENDING_EGIFT_INTERVAL_MS) : undefined;
  const reconcileTimer = owner
    ? setInterval(() => {
        running = running.then(reconcile);
      }, RECONCILE_CHARGES_INTERVAL_MS)
    : undefined;
  first.unref();
  timer.unref();
  egiftTimer?.unref();
  reconcileTimer?.unref();
  return async () => {
    stopping = true;
    clearTimeout(first);
    clearInterval(timer);
    clearInterval(egiftTimer);
    clearInterval(reconcileTimer);
    await running;
  };
}
