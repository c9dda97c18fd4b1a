import { ServiceError } from '../../shared/errors';
import { findUserVendor } from '../customers/customer-store';
import type { Engine } from '../engine';
import type { HistoryRecord } from './history-record';
import { type HistoryPage, type HistoryPageRequest, planHistoryPage, toHistoryPage } from './history-page';

/**
 * A customer's transaction history with one vendor, newest first, one page. Both variants of
 * GET /user/transaction/list call this: the session_key one with the logged-in customer, the
 * api_key one (in-store issue) with the `user` a store asks about.
 */
export async function customerHistory(
  engine: Engine,
  customer: { vendorId: number; userId: number },
  request: HistoryPageRequest,
): Promise<HistoryPage<HistoryRecord>> {
  const plan = planHistoryPage(request);
  if (!(await findUserVendor(engine.db, customer.userId, customer.vendorId))) throw new ServiceError('user_not_found');
  // History records are written by the in-store issue (orders, reloads, eGifts); none exist yet.
  return toHistoryPage(plan, 0, []);
}
