import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { exchangeClientCredentials } from '../../core/credentials/access-tokens';
import type { Engine } from '../../core/engine';
import { ServiceError } from '../../shared/errors';
import { AccessTokenBody, AccessTokenReply } from '../../shared/schemas/oauth';

/** Client credentials in the body (client_id, client_secret) or, per RFC 6749 §2.3.1, as HTTP Basic. */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | null {
  const match = header ? /^Basic\s+(\S+)$/i.exec(header) : null;
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  // RFC 6749 form-encodes both parts; a malformed escape is a bad credential, not a 500.
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon)), clientSecret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

export const oauthRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.post(
    '/oauth/access_token',
    { config: { style: 'resource' }, schema: { tags: ['OAuth'], body: AccessTokenBody, response: { 200: AccessTokenReply } } },
    async (request, reply) => {
      const body = request.body ?? {};
      if (!body.grant_type) throw new ServiceError('validation_failed', 'grant_type is required.', 'grant_type');
      if (body.grant_type !== 'client_credentials') throw new ServiceError('unsupported_grant_type', undefined, 'grant_type');
      const credentials =
        body.client_id && body.client_secret ? { clientId: body.client_id, clientSecret: body.client_secret } : basicCredentials(request.headers.authorization);
      if (!credentials) throw new ServiceError('invalid_client', 'Send client_id and client_secret.');
      const token = await exchangeClientCredentials(engine, credentials);
      reply.header('cache-control', 'no-store');
      return { access_token: token.accessToken, token_type: 'bearer' as const, expires_in: token.expiresIn };
    },
  );
};
