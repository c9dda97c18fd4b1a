import type { FastifyRequest } from 'fastify';
import { authenticateApiKey, type StoreScope } from '../../core/credentials/authenticate';
import type { Engine } from '../../core/engine';
import { ServiceError } from '../../shared/errors';
import type { ApiKeyRole } from '../../shared/roles';
import { givenTwice, tagCredential } from './credential';

declare module 'fastify' {
  interface FastifyRequest {
    store: StoreScope | null;
  }
}

/**
 * Check (before validation) for in-store calls: the `api_key` query parameter names the store and the role.
 * `roles` lists who may make the call (the node enforces roles, not the screens).
 */
export function requireApiKey(engine: Engine, roles: readonly ApiKeyRole[] = ['cashier', 'kiosk', 'integration']) {
  return tagCredential(async (request: FastifyRequest) => {
    const key = (request.query as { api_key?: unknown }).api_key;
    if (Array.isArray(key)) throw givenTwice('api_key');
    if (typeof key !== 'string' || key === '') throw new ServiceError('missing_credentials', 'This call needs the api_key of a store.');
    const scope = await authenticateApiKey(engine, key);
    if (!roles.includes(scope.role)) throw new ServiceError('forbidden', `A ${scope.role} key may not make this call.`);
    request.store = scope;
  }, { kind: 'api_key', roles });
}

export function storeOf(request: FastifyRequest): StoreScope {
  if (!request.store) throw new ServiceError('missing_credentials');
  return request.store;
}
