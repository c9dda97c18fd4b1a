import type { FastifyBaseLogger } from 'fastify';
import type { Engine } from '../../core/engine';
import { expirePoints } from '../../core/expiry/expire-points';

export const EXPIRY_INTERVAL_MS = 3600_000;

/** Background jobs of a node: points expiry now, hourly. Returns the function that stops them. */
export function startJobs(engine: Engine, logger?: FastifyBaseLogger): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = running
      .then(() => expirePoints(engine))
      .then((result) => {
        if (result.accounts > 0) logger?.info(result, 'points expired');
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'points expiry failed'));
  };
  const first = setTimeout(run, 1000);
  const timer = setInterval(run, EXPIRY_INTERVAL_MS);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
