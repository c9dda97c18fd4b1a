import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock';
import { ServiceError } from '../../shared/errors';

/**
 * Fixed-window counters in memory, per node: enough to stop password guessing and address
 * harvesting from one client or against one account. (A chain's central node behind several
 * processes would move this to the database or Redis.)
 */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  #lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts a hit; returns the seconds to wait when the key is over its limit, else 0. */
  hit(key: string): number {
    const now = this.clock.now();
    this.#sweep(now);
    const window = this.#windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      this.#windows.set(key, { start: now, count: 1 });
      return 0;
    }
    window.count += 1;
    return window.count > this.limit ? Math.ceil((window.start + this.windowMs - now) / 1000) : 0;
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < this.windowMs) return;
    this.#lastSweep = now;
    for (const [key, window] of this.#windows) if (now - window.start >= this.windowMs) this.#windows.delete(key);
  }
}

export interface RateRule {
  /** Counts per client (IP address). */
  perClient: RateLimiter;
  /** Counts per account or looked-up value (email, phone, cedula), from the request. */
  perAccount: RateLimiter;
  accountOf(request: FastifyRequest): string | undefined;
}

/** preHandler: 429 rate_limited with Retry-After when the client or the account is over its limit. */
export function rateLimited(name: string, rule: RateRule) {
  return async (request: FastifyRequest, reply: { header(name: string, value: string): unknown }) => {
    const waits = [rule.perClient.hit(`${name}:ip:${request.ip}`)];
    const account = rule.accountOf(request)?.trim().toLowerCase();
    if (account) waits.push(rule.perAccount.hit(`${name}:account:${account}`));
    const wait = Math.max(...waits);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw new ServiceError('rate_limited', `Too many requests. Please wait ${wait} seconds and try again.`);
    }
  };
}
