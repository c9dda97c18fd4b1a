import type { FastifyRequest, RouteOptions } from 'fastify';
import type { Engine } from '../../core/engine';
import { countHit, sweepRateWindows } from '../../core/limits/count-hit';
import { ServiceError } from '../../shared/errors';
import { clientKey } from './client-address';

/**
 * Fixed-window counters kept in the node's database, so every process of one node (a chain's
 * central behind a load balancer, the CLI next to a store node) counts against the same limit.
 */
export class RateLimiter {
  #lastSweep = 0;

  constructor(
    private readonly engine: Engine,
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts a hit; returns the seconds to wait when the key is over its limit, else 0. */
  async hit(key: string): Promise<number> {
    const now = this.engine.clock.now();
    if (now - this.#lastSweep >= this.windowMs) {
      this.#lastSweep = now;
      await sweepRateWindows(this.engine);
    }
    const window = await countHit(this.engine, key, this.windowMs);
    return window.hits > this.limit ? Math.max(1, Math.ceil((window.windowStart + this.windowMs - now) / 1000)) : 0;
  }
}

export interface RateRule {
  /** Counts per client (an IPv4 address, an IPv6 /64: clientKey). */
  perClient: RateLimiter;
  /** Counts per account or looked-up value (email, phone, cedula), from the request. */
  perAccount: RateLimiter;
  /** May read the database (a phone is read in its vendor's country). */
  accountOf(request: FastifyRequest): string | undefined | Promise<string | undefined>;
}

/**
 * Route check: 429 rate_limited with Retry-After when the client or the account is over its limit.
 * `name` keys the counters in the database: one name per call site, so two calls never share one.
 */
export function rateLimited(name: string, rule: RateRule) {
  return markRateLimited(async (request: FastifyRequest, reply: { header(name: string, value: string): unknown }) => {
    const waits = [await rule.perClient.hit(`${name}:ip:${clientKey(request.ip)}`)];
    const account = (await rule.accountOf(request))?.trim().toLowerCase();
    if (account) waits.push(await rule.perAccount.hit(`${name}:account:${account}`));
    const wait = Math.max(...waits);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw new ServiceError('rate_limited', `Too many requests. Please wait ${wait} seconds and try again.`);
    }
  });
}

const RATE_LIMITED = Symbol('rate limited');

/** Tags a route check that may answer 429 rate_limited, so /openapi.json documents it (openapi-errors.ts). */
export function markRateLimited<F extends (...args: never[]) => unknown>(check: F): F {
  (check as { [RATE_LIMITED]?: true })[RATE_LIMITED] = true;
  return check;
}

/** Whether any check the route runs is tagged rate limited. */
export function isRateLimitedRoute(route: Pick<RouteOptions, 'onRequest' | 'preValidation' | 'preHandler'>): boolean {
  const hooks = [route.onRequest, route.preValidation, route.preHandler].flatMap((hook) => (Array.isArray(hook) ? hook : hook ? [hook] : []));
  return hooks.some((hook) => (hook as { [RATE_LIMITED]?: true })[RATE_LIMITED] === true);
}
