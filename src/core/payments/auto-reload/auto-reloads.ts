import type { Kysely, Selectable } from 'kysely';
import { isServiceError } from '../../../shared/errors';
import { findUserVendor } from '../../customers/customer-store';
import type { Engine } from '../../engine';
import { nextObjectId } from '../../storage/ids';
import type { AutoReloadsTable, DB } from '../../storage/schema';
import { paymentLimitsOf } from '../../rules/settings/payment-limits';
import { liveBillingProfiles } from '../billing-profiles/billing-profile';
import { chargeableAtMost } from '../gateway/card-amounts';
import { quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';
import { loadCharge, refreshCharge } from '../charges/payment-charges';
import { chargeBillingProfile, reloadSettlement } from '../reloads/charge-billing-profile';
import { isAutoReloadEnabled } from './reload-settings';

// Auto reload through an outbox. When a spend takes the quick-pay balance from above the
// customer's threshold to or below it (a crossing), the order's own transaction writes one
// auto_reloads row; a worker (runDueAutoReloads) charges the selected profile afterwards, outside
// any transaction, and the charge's settlement credits the balance and finishes the row. A
// balance already at or below the threshold crosses nothing: one reload per crossing.

export type AutoReloadRow = Selectable<AutoReloadsTable>;

/** Rows the worker still works on. */
const OPEN = ['queued', 'pending'] as const;
/** Tries before a row whose charge never reached the gateway is given up ('failed'). */
export const MAX_AUTO_RELOAD_ATTEMPTS = 8;
/** First retry delay; doubles per attempt, at most MAX_RETRY_DELAY_MS. */
const RETRY_DELAY_MS = 30_000;
const MAX_RETRY_DELAY_MS = 3600_000;
/** How soon a pending (late-result) charge is asked about again. */
const PENDING_POLL_MS = 30_000;

// Wake-ups: the order that queues a row tells the node's worker to run now rather than at its next tick.
const listeners = new WeakMap<Engine, Set<() => void>>();

/** Calls `listener` after a transaction that queued an auto reload committed; returns the unsubscribe. */
export function onAutoReloadQueued(engine: Engine, listener: () => void): () => void {
  let set = listeners.get(engine);
  if (!set) listeners.set(engine, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Tell the worker (call after the commit of a transaction in which queueAutoReloadOnCrossing returned an id). */
export function notifyAutoReloadQueued(engine: Engine): void {
  for (const listener of listeners.get(engine) ?? []) listener();
}

/**
 * In the spend's transaction: queues an auto reload when the spend crossed the customer's
 * threshold (before > threshold >= after) and auto reload is enabled with a live profile, unless
 * one is already open for the customer. Returns the row id, or null.
 */
export async function queueAutoReloadOnCrossing(
  trx: Kysely<DB>,
  engine: Engine,
  spend: { vendorId: number; userId: number; balanceBefore: number; balanceAfter: number; orderId: number | null },
): Promise<number | null> {
  const link = await findUserVendor(trx, spend.userId, spend.vendorId);
  // A blocked customer is not charged (refuseBlockedPayer): nothing is queued for them.
  if (!link || !isAutoReloadEnabled(link) || link.blocked_at !== null) return null;
  const threshold = Number(link.reload_threshold);
  if (!(spend.balanceBefore > threshold && spend.balanceAfter <= threshold)) return null;
  const profile = await liveBillingProfiles(trx, spend).select('id').where('id', '=', link.billing_profile_id!).executeTakeFirst();
  if (!profile) return null;
  const open = await trx
    .selectFrom('auto_reloads')
    .select('id')
    .where('user_id', '=', spend.userId)
    .where('vendor_id', '=', spend.vendorId)
    .where('status', 'in', OPEN)
    .executeTakeFirst();
  if (open) return null;
  // Never above the program's largest reload, lowered since the customer saved their amount: the
  // merchant's limit holds, the customer is still topped up (their setting comes back in full if
  // the limit is raised again).
  const { reloadMax } = await paymentLimitsOf(engine, spend.vendorId, trx);
  // …and never an amount the card cannot be charged (KWD 12.345, saved before that was refused, or
  // a limit of 100.005): the nearest chargeable amount below it.
  const currency = await quickPayCurrencyOf(trx, spend.vendorId, { requireActive: false });
  const amount = chargeableAtMost(Math.min(Number(link.reload_amount), reloadMax), currency.code);
  if (amount <= 0) return null;
  const now = engine.clock.now();
  const id = await nextObjectId(trx, engine.nodeId);
  await trx
    .insertInto('auto_reloads')
    .values({
      id,
      vendor_id: spend.vendorId,
      user_id: spend.userId,
      billing_profile_id: profile.id,
      amount,
      threshold,
      order_id: spend.orderId,
      status: 'queued',
      charge_id: null,
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    })
    .execute();
  return id;
}

/** The idempotency key of an auto reload's charge: one charge per row, whatever happens. */
export function autoReloadChargeKey(rowId: number): string {
  return `auto_reload:${rowId}`;
}

export interface AutoReloadReport {
  /** Rows looked at in this pass. */
  processed: number;
  completed: number;
  declined: number;
  pending: number;
  retrying: number;
  cancelled: number;
  failed: number;
}

/**
 * One pass of the auto-reload worker: charges the queued rows that are due, asks the gateway about
 * pending ones, retries a gateway that could not be reached with a growing delay. Never runs two
 * charges for one row: the row's charge carries the idempotency key `auto_reload:<row id>`.
 */
export async function runDueAutoReloads(engine: Engine, options: { batchSize?: number } = {}): Promise<AutoReloadReport> {
  const now = engine.clock.now();
  const rows = await engine.db
    .selectFrom('auto_reloads')
    .selectAll()
    .where('status', 'in', OPEN)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.batchSize ?? 20)
    .execute();
  const report: AutoReloadReport = { processed: rows.length, completed: 0, declined: 0, pending: 0, retrying: 0, cancelled: 0, failed: 0 };
  for (const row of rows) {
    const outcome = await runOne(engine, row);
    report[outcome] += 1;
  }
  return report;
}

/** Passes until one finds nothing due (tests, and a planned shutdown). */
export async function drainAutoReloads(engine: Engine, maxPasses = 100): Promise<void> {
  for (let i = 0; i < maxPasses; i++) {
    const report = await runDueAutoReloads(engine);
    if (report.processed === 0) return;
  }
}

type Outcome = 'completed' | 'declined' | 'pending' | 'retrying' | 'cancelled' | 'failed';

async function runOne(engine: Engine, row: AutoReloadRow): Promise<Outcome> {
  const owner = { vendorId: row.vendor_id, userId: row.user_id };
  const now = engine.clock.now();
  try {
    let status: string;
    if (row.status === 'pending' && row.charge_id !== null) {
      const charge = await loadCharge(engine.db, row.charge_id);
      const profile = await engine.db.selectFrom('billing_profiles').selectAll().where('id', '=', row.billing_profile_id).executeTakeFirst();
      const refreshed = charge ? await refreshCharge(engine, charge, null, reloadSettlement(engine, owner, profile ?? null)) : undefined;
      status = refreshed?.status ?? 'declined';
    } else {
      // Not charged yet: a customer who has since turned auto reload off (amount 0, threshold 0,
      // profile null) or left the program is not charged. A row whose charge already exists
      // (charge_id set) is finished whatever the settings say now.
      if (row.charge_id === null) {
        const link = await findUserVendor(engine.db, row.user_id, row.vendor_id);
        if (!link || !isAutoReloadEnabled(link)) {
          await finish(engine, row.id, 'cancelled', link ? 'auto reload disabled' : 'user_not_found');
          return 'cancelled';
        }
        if (link.blocked_at !== null) {
          await finish(engine, row.id, 'cancelled', 'customer_blocked');
          return 'cancelled';
        }
      }
      await engine.db.updateTable('auto_reloads').set({ attempts: row.attempts + 1, updated_at: now }).where('id', '=', row.id).execute();
      const { charge } = await chargeBillingProfile(engine, owner, {
        profileId: row.billing_profile_id,
        amountMinor: Number(row.amount),
        purpose: 'auto_reload',
        idempotencyKey: autoReloadChargeKey(row.id),
      });
      status = charge.status;
      await engine.db.updateTable('auto_reloads').set({ charge_id: charge.id, updated_at: now }).where('id', '=', row.id).execute();
    }
    if (status === 'succeeded') return 'completed';
    if (status === 'declined') return 'declined';
    if (status === 'failed') {
      // The reconciliation job gave its charge up (the gateway never saw it): nothing was taken.
      await finish(engine, row.id, 'failed', 'charge_failed');
      return 'failed';
    }
    if (status === 'refunded') {
      // Paid, but staff refunded it (the program could not credit it): the money went back.
      await finish(engine, row.id, 'failed', 'charge_refunded');
      return 'failed';
    }
    await engine.db
      .updateTable('auto_reloads')
      .set({ status: 'pending', next_attempt_at: now + PENDING_POLL_MS, updated_at: now })
      .where('id', '=', row.id)
      .where('status', 'in', OPEN)
      .execute();
    return 'pending';
  } catch (error) {
    // The profile was deleted (or the customer left the program, or was blocked) since the row was
    // queued, or its amount cannot be charged (validation_failed: queued before that was checked).
    if (isServiceError(error) && ['billing_profile_not_found', 'user_not_found', 'customer_blocked', 'validation_failed'].includes(error.code)) {
      await finish(engine, row.id, 'cancelled', error.code);
      return 'cancelled';
    }
    const attempts = row.attempts + 1;
    const message = isServiceError(error) ? error.code : error instanceof Error ? error.name : 'error';
    if (row.status === 'queued' && attempts >= MAX_AUTO_RELOAD_ATTEMPTS) {
      await finish(engine, row.id, 'failed', message);
      return 'failed';
    }
    const delay = Math.min(RETRY_DELAY_MS * 2 ** (attempts - 1), MAX_RETRY_DELAY_MS);
    await engine.db
      .updateTable('auto_reloads')
      .set({ next_attempt_at: now + delay, last_error: message, updated_at: now })
      .where('id', '=', row.id)
      .where('status', 'in', OPEN)
      .execute();
    return 'retrying';
  }
}

async function finish(engine: Engine, rowId: number, status: 'cancelled' | 'failed', reason: string): Promise<void> {
  const now = engine.clock.now();
  await engine.db
    .updateTable('auto_reloads')
    .set({ status, last_error: reason, finished_at: now, updated_at: now })
    .where('id', '=', rowId)
    .where('status', 'in', OPEN)
    .execute();
}
