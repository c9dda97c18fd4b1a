import { ServiceError } from '../../shared/errors';
import { toMajorUnits } from '../../shared/money';
import { vendorMoneyDigits } from '../currencies/vendor-money';
import { findUserVendor, survivingCustomerId } from '../customers/customer-store';
import type { Engine } from '../engine';
import { RATEABLE_KINDS, RATING_WINDOW_MS, secondsLeft, TIP_WINDOW_MS } from '../feedback/feedback-windows';
import type { HistoryRecord } from './history-record';
import { type HistoryPage, type HistoryPageRequest, planHistoryPage, toHistoryPage } from './history-page';

/**
 * A customer's transaction history with one vendor, newest first, one page. Both variants of
 * GET /user/transaction/list call this: the session_key one with the logged-in customer, the
 * api_key one (in-store issue) with the `user` a store asks about, which may be an id merged into
 * another customer since the till kept it (then that customer's history).
 */
export async function customerHistory(
  engine: Engine,
  asked: { vendorId: number; userId: number },
  request: HistoryPageRequest,
): Promise<HistoryPage<HistoryRecord>> {
  const plan = planHistoryPage(request);
  const customer = { vendorId: asked.vendorId, userId: await survivingCustomerId(engine.db, asked.userId) };
  if (!(await findUserVendor(engine.db, customer.userId, customer.vendorId))) throw new ServiceError('user_not_found', undefined, 'user');
  const base = engine.db.selectFrom('transactions as t').where('t.vendor_id', '=', customer.vendorId).where('t.user_id', '=', customer.userId);
  const [{ count }, rows, digits] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    base
      .leftJoin('stores as s', 's.id', 't.store_id')
      .selectAll('t')
      .select(['s.name as store_name', 's.address1', 's.city'])
      .orderBy('t.occurred_at', 'desc')
      .orderBy('t.id', 'desc')
      .limit(plan.limit)
      .offset(plan.offset)
      .execute(),
    vendorMoneyDigits(engine.db, customer.vendorId),
  ]);
  const major = (minor: number) => toMajorUnits(minor, digits);
  const now = engine.clock.now();
  // `window`: seconds left to rate (changeable until then) or tip (0 once tipped); 0 for records that cannot be rated.
  const windowLeft = (row: { kind: string; status: string; occurred_at: number }, windowMs: number) =>
    RATEABLE_KINDS.includes(row.kind) && row.status === 'Complete' ? secondsLeft(row.occurred_at, windowMs, now) : 0;
  const records: HistoryRecord[] = rows.map((row) => ({
    kind: row.kind,
    id: row.id,
    completedAt: row.occurred_at,
    total: major(row.total),
    storeName: row.store_name ?? '',
    storeAddress: [row.address1, row.city].filter(Boolean).join(', '),
    rating: { comment: row.rating_comment, value: row.rating_value ?? 0, window: windowLeft(row, RATING_WINDOW_MS) },
    tip: { amount: major(Number(row.tip_amount ?? 0)), window: row.tip_amount === null ? windowLeft(row, TIP_WINDOW_MS) : 0 },
    quickpay: { used: major(row.quick_pay_used), loaded: major(row.quick_pay_loaded), balance: major(row.quick_pay_balance) },
    items: JSON.parse(row.items) as Record<string, unknown>[],
    taxes: JSON.parse(row.taxes) as Record<string, unknown>[],
    receipts: JSON.parse(row.receipts) as Record<string, unknown>[],
    rewards: JSON.parse(row.rewards) as Record<string, unknown>[],
    status: row.status,
  }));
  return toHistoryPage(plan, Number(count), records);
}
