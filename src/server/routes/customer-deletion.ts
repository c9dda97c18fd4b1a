import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { confirmAccountDeletion, requestAccountDeletion } from '../../core/customers/account-deletion';
import type { Engine } from '../../core/engine';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { DeletionConfirmBody, DeletionConfirmParams, DeletionConfirmQuery, DeletionForfeitBody, DeletionSubmitParams, DeletionSubmitQuery } from '../../shared/schemas/users';
import { customerOf, requireSession } from '../auth/session';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';

const tags = ['Users'];
const config = { style: 'legacy' as const };

/** Two-step account deletion: a code is emailed, then the code deletes. `forfeit_balances` may come in the query or the body of either step. */
export const customerDeletionRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const send = rateLimited('deletion-send', rateRule(engine, rateLimits.messageSend, (r) => (r.customer ? String(r.customer.userId) : undefined)));
  const entry = rateLimited('deletion-confirm', rateRule(engine, rateLimits.codeEntry, () => undefined));

  app.delete(
    '/vendor/:vendor_id/customers/:user_id/submit',
    { config, preValidation: [requireSession(engine), send], schema: { tags, params: DeletionSubmitParams, querystring: DeletionSubmitQuery, body: DeletionForfeitBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      const forfeit = request.query.forfeit_balances === true || request.body?.forfeit_balances === true;
      await requestAccountDeletion(engine, customerOf(request), { vendorId: request.params.vendor_id, userId: request.params.user_id }, forfeit);
      return {};
    },
  );

  app.delete(
    '/vendor/:vendor_id/customers',
    { config, preValidation: entry, schema: { tags, params: DeletionConfirmParams, querystring: DeletionConfirmQuery, body: DeletionConfirmBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      const forfeit = request.query.forfeit_balances === true || request.body.forfeit_balances === true;
      await confirmAccountDeletion(engine, { vendorId: request.params.vendor_id, code: request.body.code, forfeitBalances: forfeit });
      return {};
    },
  );
};
