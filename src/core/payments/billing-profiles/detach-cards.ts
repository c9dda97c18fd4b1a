import type { Kysely } from 'kysely';
import { type Engine, ownsProgramData } from '../../engine';
import { nextObjectId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import { PaymentGatewayError } from '../gateway/payment-gateway';

/** After this many failed attempts a detachment is left `failed` (listed for staff in the log). */
export const DETACH_MAX_ATTEMPTS = 20;
const MINUTE = 60_000;

/**
 * Queues every saved card of the person (any vendor, deleted or not) still holding a gateway token
 * for detachment at the gateway, inside the erasure's transaction: the token moves from the profile
 * to the outbox row, which keeps it only until the gateway confirms.
 */
export async function queueCardDetachments(db: Kysely<DB>, engine: Engine, userId: number, onlyVendorId?: number): Promise<void> {
  const profiles = await db
    .selectFrom('billing_profiles')
    .select(['id', 'vendor_id', 'gateway', 'token'])
    .where('user_id', '=', userId)
    .where('token', '!=', '')
    .$if(onlyVendorId !== undefined, (qb) => qb.where('vendor_id', '=', onlyVendorId!))
    .execute();
  const now = engine.clock.now();
  for (const profile of profiles) {
    await db
      .insertInto('gateway_detachments')
      .values({
        id: await nextObjectId(db, engine.nodeId),
        vendor_id: profile.vendor_id,
        billing_profile_id: profile.id,
        gateway: profile.gateway,
        token: profile.token,
        status: 'queued',
        next_attempt_at: now,
        last_error: null,
        created_at: now,
        finished_at: null,
      })
      .execute();
  }
}

/**
 * Works off the queue (after an erasure, and every minute; only where the program's data is
 * owned): each due detachment of this node's gateway is sent; done, its token is blanked; failed,
 * it is retried with a doubling delay (1 min … 1 day), and given up after DETACH_MAX_ATTEMPTS.
 */
export async function detachQueuedCards(engine: Engine): Promise<{ detached: number; failed: number }> {
  if (!ownsProgramData(engine)) return { detached: 0, failed: 0 };
  const now = engine.clock.now();
  const due = await engine.db
    .selectFrom('gateway_detachments')
    .selectAll()
    .where('status', '=', 'queued')
    .where('gateway', '=', engine.payments.name)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(100)
    .execute();
  const report = { detached: 0, failed: 0 };
  for (const row of due) {
    try {
      await engine.payments.detach(row.token);
      const done = await engine.db
        .updateTable('gateway_detachments')
        .set({ status: 'done', token: '', finished_at: engine.clock.now(), last_error: null })
        .where('id', '=', row.id)
        .where('status', '=', 'queued')
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 1) report.detached += 1;
    } catch (error) {
      if (!(error instanceof PaymentGatewayError)) throw error;
      const attempts = Number(row.attempts) + 1;
      const giveUp = attempts >= DETACH_MAX_ATTEMPTS;
      await engine.db
        .updateTable('gateway_detachments')
        .set({
          attempts,
          status: giveUp ? 'failed' : 'queued',
          last_error: error.message.slice(0, 500),
          next_attempt_at: now + Math.min(MINUTE * 2 ** (attempts - 1), 24 * 60 * MINUTE),
          finished_at: giveUp ? engine.clock.now() : null,
        })
        .where('id', '=', row.id)
        .execute();
      report.failed += 1;
    }
  }
  return report;
}
