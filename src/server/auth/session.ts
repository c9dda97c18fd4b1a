import type { FastifyRequest } from 'fastify';
import { authenticateSession, type CustomerSession } from '../../core/customers/sessions';
import type { Engine } from '../../core/engine';
import { ServiceError } from '../../shared/errors';
import { givenTwice, tagCredential } from './credential';

declare module 'fastify' {
  interface FastifyRequest {
    customer: CustomerSession | null;
  }
}

/**
 * Check (before validation) for end-customer calls: the `session_key` query parameter (the two resend-verification
 * endpoints name it `session_identifier`; both names work everywhere).
 */
export function requireSession(engine: Engine) {
  return tagCredential(async (request: FastifyRequest) => {
    const query = request.query as { session_key?: unknown; session_identifier?: unknown };
    const key = query.session_key ?? query.session_identifier;
    if (Array.isArray(key)) throw givenTwice(query.session_key === undefined ? 'session_identifier' : 'session_key');
    if (typeof key !== 'string' || key === '') throw new ServiceError('missing_credentials', 'This call needs the session_key of a logged-in customer.');
    request.customer = await authenticateSession(engine, key);
  }, { kind: 'session' });
}

export function customerOf(request: FastifyRequest): CustomerSession {
  if (!request.customer) throw new ServiceError('missing_credentials');
  return request.customer;
}
