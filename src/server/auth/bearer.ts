import type { FastifyRequest } from 'fastify';
import { authenticateBearer, type BearerScope } from '../../core/credentials/authenticate';
import type { Engine } from '../../core/engine';
import { ServiceError } from '../../shared/errors';
import { tagCredential } from './credential';

declare module 'fastify' {
  interface FastifyRequest {
    bearer: BearerScope | null;
  }
}

/** Check (before validation) for resource-style routes: `Authorization: Bearer <token>` names the vendor. */
export function requireBearer(engine: Engine) {
  return tagCredential(async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (!header) throw new ServiceError('missing_credentials', 'Send an Authorization: Bearer <token> header.');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw new ServiceError('invalid_token', 'The Authorization header must be "Bearer <token>".');
    request.bearer = await authenticateBearer(engine, match[1]);
  }, { kind: 'bearer' });
}

/** The vendor of a request that passed requireBearer. */
export function vendorOf(request: FastifyRequest): { vendorId: number } {
  if (!request.bearer) throw new ServiceError('missing_credentials');
  return { vendorId: request.bearer.vendorId };
}
