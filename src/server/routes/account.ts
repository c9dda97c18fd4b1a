import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { changePassword } from '../../core/customers/change-password';
import { deactivateAccount } from '../../core/customers/deactivate-account';
import type { Engine } from '../../core/engine';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { ChangePasswordBody, DeactivateBody } from '../../shared/schemas/consumer';
import { SessionQuery } from '../../shared/schemas/users';
import { customerOf, requireSession } from '../auth/session';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';

const tags = ['Users'];
const config = { style: 'legacy' as const };

/**
 * Password change and deactivation. Both check the account's password, so both count against the
 * login limits per client IP and per account: a stolen session cannot guess the password quickly.
 */
export const accountRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const session = requireSession(engine);
  const passwordEntry = rateLimited('password-check', rateRule(engine, rateLimits.login, (r) => (r.customer ? String(r.customer.userId) : undefined)));

  app.put(
    '/user/password',
    { config, preValidation: [session, passwordEntry], schema: { tags, querystring: SessionQuery, body: ChangePasswordBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      await changePassword(engine, customerOf(request), { currentPassword: request.body.current_password, password: request.body.password });
      return {};
    },
  );

  app.post(
    '/user/account/deactivate',
    { config, preValidation: [session, passwordEntry], schema: { tags, querystring: SessionQuery, body: DeactivateBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      await deactivateAccount(engine, customerOf(request), request.body.password);
      return {};
    },
  );
};
