import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { SEQUENCE_SPAN } from '../storage/ids';
import type { DB } from '../storage/schema';

const DAY_MS = 24 * 3600_000;

/**
 * While a paired store cannot reach central, another store may be spending the same balance: the
 * program's offline caps bound what one customer can spend here per order and per rolling 24 hours
 * of this node's offline orders (docs/sync.md). Central accepts whatever was sold; the caps bound the
 * risk. Other nodes' offline orders pulled here are already in the balance: they do not count.
 */
export async function enforceOfflineCaps(
  trx: Kysely<DB>,
  input: { nodeId: number; vendorId: number; userId: number; quickPay: number; points: number; now: number; digits: number },
): Promise<void> {
  if (input.quickPay === 0 && input.points === 0) return;
  const caps = await trx
    .selectFrom('vendors')
    .select(['offline_quick_pay_per_order', 'offline_quick_pay_per_day', 'offline_points_per_order', 'offline_points_per_day'])
    .where('id', '=', input.vendorId)
    .executeTakeFirstOrThrow();
  const money = (minor: number) => (minor / 10 ** input.digits).toFixed(input.digits);
  const refuse = (what: string, cap: string, left?: string) =>
    new ServiceError('offline_limit', `The store is offline: ${what} is limited to ${cap} until the connection returns${left === undefined ? '' : ` (${left} left)`}.`, what.includes('points') ? 'redemptions' : 'quick_pay');
  // A cap bounds what an order spends of its own kind: an order that spends no quick pay is not
  // refused by a quick-pay cap already used up (nor one without points by a points cap).
  const spendsQuickPay = input.quickPay > 0;
  const spendsPoints = input.points > 0;
  if (spendsQuickPay && caps.offline_quick_pay_per_order !== null && input.quickPay > Number(caps.offline_quick_pay_per_order)) {
    throw refuse('quick pay per order', money(Number(caps.offline_quick_pay_per_order)));
  }
  if (spendsPoints && caps.offline_points_per_order !== null && input.points > Number(caps.offline_points_per_order)) {
    throw refuse('points per order', String(caps.offline_points_per_order));
  }
  const quickPayPerDay = spendsQuickPay ? caps.offline_quick_pay_per_day : null;
  const pointsPerDay = spendsPoints ? caps.offline_points_per_day : null;
  if (quickPayPerDay === null && pointsPerDay === null) return;
  const spent = await trx
    .selectFrom('orders')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('quick_pay_used'), eb.lit(0)).as('quick_pay'), eb.fn.coalesce(eb.fn.sum<number>('points_spent'), eb.lit(0)).as('points')])
    .where('user_id', '=', input.userId)
    .where('vendor_id', '=', input.vendorId)
    .where('offline', '=', 1)
    .where('status', '=', 'complete')
    // this node's own orders (an id carries the node that made it), of the last 24 h by its clock
    .where('id', '>=', input.nodeId * SEQUENCE_SPAN)
    .where('id', '<', (input.nodeId + 1) * SEQUENCE_SPAN)
    .where('created_at', '>', input.now - DAY_MS)
    .executeTakeFirstOrThrow();
  if (quickPayPerDay !== null && Number(spent.quick_pay) + input.quickPay > Number(quickPayPerDay)) {
    throw refuse('quick pay per customer per day', money(Number(quickPayPerDay)), money(Math.max(0, Number(quickPayPerDay) - Number(spent.quick_pay))));
  }
  if (pointsPerDay !== null && Number(spent.points) + input.points > Number(pointsPerDay)) {
    throw refuse('points per customer per day', String(pointsPerDay), String(Math.max(0, Number(pointsPerDay) - Number(spent.points))));
  }
}
