import type { Static } from 'typebox';
import type { HistoryEnvelopeSchema, HistoryRecordSchema } from '../../../shared/schemas/consumer';
import type { Requester } from './client';

export type HistoryPage = Static<typeof HistoryEnvelopeSchema>;
export type HistoryRecord = Static<typeof HistoryRecordSchema>;

/** A customer's transaction history as the store sees it (GET /user/transaction/list?user&api_key). */
export function createHistoryApi(request: Requester, apiKey: string) {
  return {
    /** Newest first; `limit` records of page `page` (1-based). */
    list: (userId: string | number, options: { limit?: number; page?: number; signal?: AbortSignal } = {}) =>
      request('/user/transaction/list', {
        query: { user: String(userId), api_key: apiKey, limit: options.limit, page: options.page },
        signal: options.signal,
      }) as Promise<HistoryPage>,
  };
}

export type HistoryApi = ReturnType<typeof createHistoryApi>;
