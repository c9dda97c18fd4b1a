import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Engine } from '../../core/engine';
import { HealthSchema } from '../../shared/schemas/health';
import { toIso } from '../../shared/time';

export interface HealthOptions {
  engine: Engine;
  role: 'store' | 'central';
  version: string;
}

/** GET /health: the node is up and its database answers. No credentials: load balancers call it. */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthOptions> = async (app, { engine, role, version }) => {
  const startedAt = engine.clock.now();
  app.get('/health', { config: { style: 'resource' }, schema: { tags: ['Node'], response: { 200: HealthSchema } } }, async () => {
    await sql`select 1`.execute(engine.db);
    const now = engine.clock.now();
    return {
      status: 'ok' as const,
      node_id: engine.nodeId,
      role,
      database: engine.dialect,
      version,
      uptime_seconds: Math.floor((now - startedAt) / 1000),
      time: toIso(now),
    };
  });
};
