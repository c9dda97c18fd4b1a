import { ServiceError } from '../../shared/errors';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../shared/schemas/common';

// Paging of the contract's transaction-history envelope, shared by both variants of
// GET /user/transaction/list (session_key: the customer; api_key + user: a store asking).

export interface HistoryPageRequest {
  page?: number | undefined;
  limit?: number | undefined;
}

export interface HistoryPlan {
  /** 1-based. */
  page: number;
  limit: number;
  offset: number;
}

export interface HistoryPage<T> {
  items: T[];
  /** Records in the whole history. */
  count: number;
  page: number;
  limit: number;
  /** ceil(count / limit): 0 for an empty history. */
  totalPages: number;
}

/** page >= 1, limit 1-100 (default 25); values outside are a 400 naming the field, not clipped. */
export function planHistoryPage(request: HistoryPageRequest): HistoryPlan {
  const page = request.page ?? 1;
  const limit = request.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new ServiceError('validation_failed', `limit must be between 1 and ${MAX_PAGE_LIMIT}.`, 'limit');
  }
  if (!Number.isInteger(page) || page < 1) throw new ServiceError('validation_failed', 'page must be 1 or more.', 'page');
  return { page, limit, offset: (page - 1) * limit };
}

export function toHistoryPage<T>(plan: HistoryPlan, count: number, items: T[]): HistoryPage<T> {
  return { items, count, page: plan.page, limit: plan.limit, totalPages: Math.ceil(count / plan.limit) };
}
