// The bench's nodes of request paths (in store, resources, scan to panel, admin search) log as
// `punchcard store` does (an access line per request at info), to a file of the run's folder: the
// product pays for its log on every request, so the figures do too.
// BENCH_REQUEST_LOG=off measures a silent node (the figures before 2026-12-06 were silent).
import type { FastifyBaseLogger } from 'fastify';
import { createLogger } from '../src/server/http/logger';

export const requestLog = process.env.BENCH_REQUEST_LOG === 'off' ? 'off' : 'file, info';

/** buildApp's logger option for a bench node whose files live in `dir`. */
export function benchLogger(dir: string): { logger?: FastifyBaseLogger } {
  return requestLog === 'off' ? {} : { logger: createLogger({ file: `${dir}/node.log` }) };
}
