import { randomBytes } from 'node:crypto';
import { startEngine } from '../../src/core/engine';
import type { RateLimitSettings } from '../../src/server/http/rate-limits';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { ManualClock } from './clock';
import { openTestPostgres } from './postgres';
import type { TestNode } from './test-node';

/** What a test that runs on SQLite and PostgreSQL needs of either node. */
export type ServedNode = Pick<TestNode, 'url' | 'engine' | 'clock' | 'addVendor'> & { close(): Promise<void> };

/**
 * startTestNode's PostgreSQL twin: a central node over real HTTP on a fresh database of the server
 * at PG_URL (else an embedded PGlite), with a manual clock; `close` drops the database.
 */
export async function startPostgresCentral(options: { rateLimits?: Partial<RateLimitSettings> } = {}): Promise<ServedNode> {
  const pg = await openTestPostgres();
  const clock = new ManualClock();
  const engine = await startEngine({ database: pg.database, nodeKey: randomBytes(32), clock, role: 'central' });
  const app = await buildApp({ engine, role: 'central', version: 'test', ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  let count = 0;
  return {
    url,
    engine,
    clock,
    addVendor: (name) => setUpVendor(engine, { name: name ?? `Vendor ${++count}`, currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } }),
    close: async () => {
      await app.close();
      await engine.close();
      await pg.drop();
    },
  };
}
