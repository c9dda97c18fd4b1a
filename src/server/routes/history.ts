import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Engine } from '../../core/engine';
import { customerHistory } from '../../core/history/customer-history';
import type { HistoryPage } from '../../core/history/history-page';
import type { HistoryRecord } from '../../core/history/history-record';
import { ServiceError } from '../../shared/errors';
import { rateTransaction } from '../../core/feedback/rate-transaction';
import { tipTransaction } from '../../core/feedback/tip-transaction';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { HistoryEnvelopeSchema, HistoryQuery, RateTransactionBody, TipTransactionBody } from '../../shared/schemas/consumer';
import { SessionQuery } from '../../shared/schemas/users';
import { toUnixSeconds } from '../../shared/time';
import { requireApiKey, storeOf } from '../auth/api-key';
import { customerOf, requireSession } from '../auth/session';
import { pageLinks } from '../http/page-links';

const tags = ['History'];
const config = { style: 'legacy' as const };

export function historyRecordWire(record: HistoryRecord) {
  return {
    object: record.kind,
    id: record.id,
    date: toUnixSeconds(record.completedAt),
    total: record.total,
    address: record.storeAddress,
    name: record.storeName,
    rating: record.rating,
    tip: record.tip,
    quickpay: { object: 'quickpay', ...record.quickpay },
    items: record.items,
    taxes: record.taxes,
    receipts: record.receipts,
    rewards: record.rewards,
    status: record.status,
  };
}

/**
 * The contract's history envelope. next/previous are absolute URLs of this same request with `page`
 * and `limit` set and every other query parameter kept as sent (session_key here; user and api_key
 * in the store variant); previous is null on page 1, next on the last page.
 */
export function historyEnvelope(request: FastifyRequest, page: HistoryPage<HistoryRecord>) {
  const links = pageLinks(request, { items: page.items, page: page.page, limit: page.limit, hasMore: page.page < page.totalPages });
  return {
    object: 'list' as const,
    count: page.count,
    page: page.page,
    page_size: page.limit,
    total_pages: page.totalPages,
    next_page_url: links.next,
    previous_page_url: links.prev,
    data: page.items.map(historyRecordWire),
  };
}

/**
 * GET /user/transaction/list has two variants on one path, told apart by the credential: with
 * session_key, the logged-in customer's history; with api_key and user, a store asking about one of
 * its vendor's customers. session_key wins when both are sent.
 */
export const historyRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const session = requireSession(engine);
  const store = requireApiKey(engine);
  const credential = async (request: FastifyRequest) => {
    const query = request.query as { session_key?: unknown; api_key?: unknown };
    const hasSession = typeof query.session_key === 'string' && query.session_key !== '';
    if (!hasSession && typeof query.api_key === 'string' && query.api_key !== '') return store(request);
    await session(request);
  };

  app.get(
    '/user/transaction/list',
    { config, preHandler: credential, schema: { tags, querystring: HistoryQuery, response: { 200: HistoryEnvelopeSchema } } },
    async (request) => {
      const customer = request.store ? { vendorId: storeOf(request).vendorId, userId: userParam(request.query.user) } : customerOf(request);
      const page = await customerHistory(engine, customer, { page: request.query.page, limit: request.query.limit });
      return historyEnvelope(request, page);
    },
  );

  const ref = (transaction: number | { id: number }) => (typeof transaction === 'number' ? transaction : transaction.id);

  app.post(
    '/user/transaction/rate',
    { config, preHandler: session, schema: { tags, querystring: SessionQuery, body: RateTransactionBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      const { transaction, rating, comment } = request.body;
      await rateTransaction(engine, customerOf(request), { transactionId: ref(transaction), value: rating, comment });
      return {};
    },
  );

  app.post(
    '/user/transaction/tip',
    { config, preHandler: session, schema: { tags, querystring: SessionQuery, body: TipTransactionBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      await tipTransaction(engine, customerOf(request), { transactionId: ref(request.body.transaction), amount: request.body.amount });
      return {};
    },
  );
};

function userParam(user: number | undefined): number {
  if (user === undefined) throw new ServiceError('validation_failed', 'user (the customer id) is required with api_key.', 'user');
  return user;
}
