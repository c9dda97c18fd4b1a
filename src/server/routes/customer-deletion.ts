import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { confirmAccountDeletion, requestAccountDeletion } from '../../core/customers/account-deletion';
import type { Engine } from '../../core/engine';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { DeletionConfirmBody, DeletionConfirmParams, DeletionSubmitParams, SessionQuery } from '../../shared/schemas/users';
import { customerOf, requireSession } from '../auth/session';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';

const tags = ['Users'];
const config = { style: 'legacy' as const };

/** Two-step account deletion: a code is emailed, then the code deletes. */
export const customerDeletionRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const send = rateLimited('deletion-send', rateRule(engine, rateLimits.messageSend, (r) => (r.customer ? String(r.customer.userId) : undefined)));
  const entry = rateLimited('deletion-confirm', rateRule(engine, rateLimits.codeEntry, () => undefined));

  app.delete(
    '/vendor/:vendor_id/customers/:user_id/submit',
    { config, preValidation: [requireSession(engine), send], schema: { tags, params: DeletionSubmitParams, querystring: SessionQuery, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      await requestAccountDeletion(engine, customerOf(request), { vendorId: request.params.vendor_id, userId: request.params.user_id });
      return {};
    },
  );

  app.delete(
    '/vendor/:vendor_id/customers',
    { config, preValidation: entry, schema: { tags, params: DeletionConfirmParams, body: DeletionConfirmBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      await confirmAccountDeletion(engine, { vendorId: request.params.vendor_id, code: request.body.code });
      return {};
    },
  );
};
