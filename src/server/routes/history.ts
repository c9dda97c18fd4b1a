import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
import { tagCredential } from '../auth/credential';
import { customerOf, requireSession } from '../auth/session';
import { pageLinks } from '../http/page-links';
import { markRateLimited, rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';

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
export const historyRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const session = requireSession(engine);
  // A kiosk faces the public: it checks customers in and never reads anyone's history.
  const store = requireApiKey(engine, ['cashier', 'integration']);
  // Per key as well as per client, so a leaked key cannot step through customer ids at speed.
  const storeLimit = rateLimited('store-history', rateRule(engine, rateLimits.storeHistory, (request) => (request.store ? `key:${request.store.apiKeyId}` : undefined)));
  const credential = markRateLimited(tagCredential(async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as { session_key?: unknown; api_key?: unknown };
    const hasSession = typeof query.session_key === 'string' && query.session_key !== '';
    if (!hasSession && typeof query.api_key === 'string' && query.api_key !== '') {
      await store(request);
      return storeLimit(request, reply);
    }
    await session(request);
  }, { kind: 'session_or_api_key', roles: ['cashier', 'integration'] }));

  app.get(
    '/user/transaction/list',
    { config, preValidation: credential, schema: { tags, querystring: HistoryQuery, response: { 200: HistoryEnvelopeSchema } } },
    async (request) => {
      const customer = request.store ? { vendorId: storeOf(request).vendorId, userId: userParam(request.query.user) } : customerOf(request);
      const page = await customerHistory(engine, customer, { page: request.query.page, limit: request.query.limit });
      return historyEnvelope(request, page);
    },
  );

  const ref = (transaction: number | { id: number }) => (typeof transaction === 'number' ? transaction : transaction.id);

  app.post(
    '/user/transaction/rate',
    { config, preValidation: session, schema: { tags, querystring: SessionQuery, body: RateTransactionBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      const { transaction, rating, comment } = request.body;
      await rateTransaction(engine, customerOf(request), { transactionId: ref(transaction), value: rating, comment });
      return {};
    },
  );

  app.post(
    '/user/transaction/tip',
    { config, preValidation: session, schema: { tags, querystring: SessionQuery, body: TipTransactionBody, response: { 200: EmptyObjectSchema } } },
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
