import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../core/engine';
import { ServiceError } from '../../shared/errors';
import { ApiKeyQuery } from '../../shared/schemas/onscreen';
import { requireApiKey, storeOf } from '../auth/api-key';
import type { PairingControl } from '../sync/pairing-control';

const tags = ['Sync'];
const config = { style: 'resource' as const };

const PairBody = Type.Object({
  central: Type.String({ minLength: 1, maxLength: 300, description: "Central's address, http(s)://host[:port]" }),
  code: Type.String({ minLength: 1, maxLength: 32, description: 'The pairing code central issued for this store' }),
  replace_local_data: Type.Optional(Type.Boolean({ description: "Set this store's own data aside (kept, renamed) and take the chain's" })),
  label: Type.Optional(Type.String({ maxLength: 100 })),
});

const UnpairQuery = Type.Intersect([ApiKeyQuery, Type.Object({ discard_unsent: Type.Optional(Type.Boolean()) })]);

/**
 * Pairing a store node with central from its Settings screen, and unpairing it (cashier keys
 * only). Both answer 202 and the node restarts in-process right after: its screens reconnect, and
 * sign in again with a key of the chain.
 */
export const storePairingRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; control: PairingControl | null }> = async (app, { engine, control }) => {
  const cashier = requireApiKey(engine, ['cashier']);
  const controlOrRefuse = () => {
    // A node embedded without a host that can restart it (tests, tools).
    if (!control) throw new ServiceError('pairing_unavailable');
    return control;
  };

  app.post('/sync/pairing', { config, preValidation: cashier, schema: { tags, querystring: ApiKeyQuery, body: PairBody } }, async (request, reply) => {
    const { central, code, replace_local_data: replaceLocalData, label } = request.body;
    const paired = await controlOrRefuse().pair({ vendorId: storeOf(request).vendorId, central, code, replaceLocalData: replaceLocalData ?? false, label });
    return reply.code(202).send({ object: 'pairing', status: 'restarting', ...paired });
  });

  app.delete('/sync/pairing', { config, preValidation: cashier, schema: { tags, querystring: UnpairQuery } }, async (request, reply) => {
    const unpaired = await controlOrRefuse().unpair({ discardUnsent: request.query.discard_unsent ?? false });
    return reply.code(202).send({ object: 'pairing', status: 'restarting', discarded: unpaired.discarded });
  });
};
