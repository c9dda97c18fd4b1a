import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { checkNodeHealth } from '../../core/chain-health/node-health';
import type { Engine } from '../../core/engine';
import { HealthSchema } from '../../shared/schemas/health';
import { toIso } from '../../shared/time';
import type { StoreSync } from '../sync/store-sync';

export interface HealthOptions {
  engine: Engine;
  role: 'store' | 'central';
  version: string;
  /** A paired store's sync runtime (its status is reported); null elsewhere. */
  sync?: StoreSync | null;
  /** The data folder whose disk is checked; an SQLite node's database folder when absent. */
  dataDir?: string | null;
  /** `degraded` under this much free space (tests raise it); node-health.ts's DISK_LOW_BYTES by default. */
  diskLowBytes?: number;
}

/**
 * GET /health: what a monitor needs, cheaply (no write on a poll): 200 `ok`; 200 `degraded` when the
 * node sells but needs attention (disk low, sync behind); 503 `unavailable` when it cannot serve
 * (database unreachable or refusing writes). No credentials: load balancers call it.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthOptions> = async (app, { engine, role, version, sync, dataDir, diskLowBytes }) => {
  const startedAt = engine.clock.now();
  app.get('/health', { config: { style: 'resource' }, schema: { tags: ['Node'], response: { 200: HealthSchema, 503: HealthSchema } } }, async (_request, reply) => {
    const health = await checkNodeHealth(engine, {
      dataDir: dataDir ?? null,
      syncStatus: sync ? () => sync.client.status() : null,
      startedAt,
      ...(diskLowBytes === undefined ? {} : { diskLowBytes }),
    });
    const now = engine.clock.now();
    const age = (at: number | null) => (at === null ? null : Math.max(0, Math.floor((now - at) / 1000)));
    const iso = (at: number | null) => (at === null ? null : toIso(at));
    const { database, disk, sync: link } = health;
    if (health.status === 'unavailable') reply.code(503);
    return {
      status: health.status,
      node_id: engine.nodeId,
      role,
      database: engine.dialect,
      version,
      uptime_seconds: Math.floor((now - startedAt) / 1000),
      time: toIso(now),
      checks: {
        database: { status: database.status, reachable: database.reachable, writable: database.writable, problem: database.problem, since: iso(database.since) },
        disk: disk && { status: disk.status, free_bytes: disk.freeBytes, total_bytes: disk.totalBytes, low_below_bytes: disk.lowBelowBytes },
        sync: link && {
          status: link.status,
          problem: link.problem,
          link: link.link,
          pending: link.pending,
          oldest_pending_at: iso(link.oldestPendingAt),
          oldest_pending_age_seconds: age(link.oldestPendingAt),
          rejected: link.rejected,
          last_push_at: iso(link.lastPushAt),
          last_pull_at: iso(link.lastPullAt),
          last_pull_age_seconds: age(link.lastPullAt),
          behind_after_seconds: Math.round(link.behindAfterMs / 1000),
        },
      },
    };
  });
};
