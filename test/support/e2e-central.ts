import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app';
import { type CentralHandle, startCentral } from '../sync/support/chain';
import { ownerOf, type SignedInStaff } from './backoffice';
import type { ManualClock } from './clock';
import { builtRendererForTests } from './e2e-renderer';
import type { TestNode } from './test-node';

/**
 * The central behind the chain pages' end-to-end tests: an in-process central on `clock` serving its
 * back office (the built renderer) over real HTTP, and an owner of its program. The caller closes
 * `app`, then what it paired, then `central`.
 */
export async function centralWithBackOffice(clock: ManualClock): Promise<{ central: CentralHandle; app: FastifyInstance; url: string; owner: SignedInStaff }> {
  const central = await startCentral(clock);
  const app = await buildApp({ engine: central.engine, role: 'central', version: 'test', rendererDir: builtRendererForTests() });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const owner = await ownerOf({ url, engine: central.engine } as TestNode, central.vendor.vendorId);
  return { central, app, url, owner };
}
