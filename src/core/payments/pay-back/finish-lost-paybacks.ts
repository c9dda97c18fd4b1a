import { isServiceError } from '../../../shared/errors';
import { actorWithoutStaff } from '../../audit/record-audit';
import { type Engine, ownsProgramData } from '../../engine';
import { sendRefunds } from './pay-back-stored-value';

// Card pay-backs whose gateway answer was lost (docs/decisions.md, "Ninth round: card pay-backs
// finished without staff"). Such a pay-back stays `refunding`: its money is out of the balance but
// not known to be on the card. The node's jobs run this every 5 minutes where the program lives:
// each one is asked of the gateway again through the use case's own sendRefunds, under the same
// refund keys (the money goes back once), and closed through its guarded finish (a refused part
// comes back to the balance once, however many runs or staff clicks meet on it).

/** Younger than this, the request that made it may still be waiting on its own answer: left alone. */
export const PAYBACK_FINISH_GRACE_MS = 5 * 60_000;
/** Still unfinished this long after it was made: reported as stuck (logged) every pass. */
export const PAYBACK_STUCK_MS = 24 * 3600_000;

export interface FinishPaybacksReport {
  /** Pay-backs looked at in this pass. */
  checked: number;
  /** Closed by this pass, every refund made (`paid`). */
  paid: number;
  /** Closed by this pass with a refused part returned to the balance (`partial` or `refused`). */
  returned: number;
  /** The gateway still could not be reached: asked again next pass. */
  waiting: number;
  /** Unfinished for longer than PAYBACK_STUCK_MS, by id (for the log: staff should look). */
  stuck: number[];
  /** Something else failed: asked again next pass. */
  errors: number;
}

/**
 * One pass over the `refunding` pay-backs older than PAYBACK_FINISH_GRACE_MS, oldest first (at most
 * `batchSize`). Nothing on a paired store: its pay-backs are central's. Safe with two processes at
 * once: the refunds' updates and the finish are guarded by their status.
 */
export async function finishLostPaybacks(engine: Engine, options: { batchSize?: number } = {}): Promise<FinishPaybacksReport> {
  const report: FinishPaybacksReport = { checked: 0, paid: 0, returned: 0, waiting: 0, stuck: [], errors: 0 };
  if (!ownsProgramData(engine)) return report;
  const now = engine.clock.now();
  const paybacks = await engine.db
    .selectFrom('stored_value_paybacks')
    .select(['id', 'vendor_id', 'created_at'])
    .where('status', '=', 'refunding')
    .where('created_at', '<=', now - PAYBACK_FINISH_GRACE_MS)
    .orderBy('created_at')
    .orderBy('id')
    .limit(options.batchSize ?? 100)
    .execute();
  report.checked = paybacks.length;
  for (const row of paybacks) {
    const id = Number(row.id);
    let unfinished = true;
    try {
      const { payback, closed } = await sendRefunds(engine, actorWithoutStaff(Number(row.vendor_id), 'system'), id, { auditFinish: true });
      unfinished = payback.status === 'refunding';
      if (closed && payback.status === 'paid') report.paid += 1;
      else if (closed) report.returned += 1;
    } catch (error) {
      if (isServiceError(error) && error.code === 'payment_gateway_unavailable') report.waiting += 1;
      else report.errors += 1;
    }
    if (unfinished && now - Number(row.created_at) >= PAYBACK_STUCK_MS) report.stuck.push(id);
  }
  return report;
}
