import type { FastifyPluginAsync } from 'fastify';
import type { StoreSync } from '../sync/store-sync';

/**
 * GET /sync/status on a store node: is it paired, is central reachable, what is waiting to be sent.
 * No credential, like /health: it names no customer, and the cashier's badge reads it.
 */
export const syncStatusRoutes: FastifyPluginAsync<{ sync: StoreSync | null }> = async (app, { sync }) => {
  app.get('/sync/status', { config: { style: 'resource' }, schema: { tags: ['Sync'] } }, async () => {
    if (sync) return sync.status();
    return {
      paired: false,
      central: null,
      link: 'down',
      pending: 0,
      oldest_pending_at: null,
      rejected: 0,
      last_push_at: null,
      last_pull_at: null,
      cursor: 0,
      cursor_lag: 0,
      first_sync: { done: false, ready: false, progress: 0, rows: 0, eta_seconds: null },
      last_error: null,
    };
  });
};
