import type { FastifyRequest } from 'fastify';
import type { Engine } from '../../core/engine';
import type { PairedNode } from '../../core/sync/central/apply-push';
import { authenticateNode } from '../../core/sync/central/pairing';
import { ServiceError } from '../../shared/errors';
import { tagCredential } from './credential';

declare module 'fastify' {
  interface FastifyRequest {
    syncNode: PairedNode | null;
  }
}

/** preValidation of central's sync endpoints: `Authorization: Bearer pcn_…` names a paired store node. */
export function requireNodeCredential(engine: Engine) {
  return tagCredential(
    async (request: FastifyRequest) => {
      const credential = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
      request.syncNode = await authenticateNode(engine, credential);
    },
    { kind: 'node' },
  );
}

export function nodeOf(request: FastifyRequest): PairedNode {
  if (!request.syncNode) throw new ServiceError('node_credential_required');
  return request.syncNode;
}
