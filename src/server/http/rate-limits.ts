import type { FastifyRequest } from 'fastify';
import type { Engine } from '../../core/engine';
import { RateLimiter, type RateRule } from './rate-limit';

export interface RateLimitSetting {
  perClient: number;
  perAccount: number;
  windowSeconds: number;
}

/** Limits of the sensitive legacy calls; documented in docs/decisions.md. */
export const DEFAULT_RATE_LIMITS = {
  /** POST /user/authenticate, per IP and per email (wrong passwords also lock the account). */
  login: { perClient: 20, perAccount: 10, windowSeconds: 60 },
  /** POST /user/password-reset/reset, per IP and per email. */
  passwordReset: { perClient: 10, perAccount: 3, windowSeconds: 900 },
  /** Typing a code: reset apply, deletion confirm, activate — per IP and per account. */
  codeEntry: { perClient: 10, perAccount: 10, windowSeconds: 900 },
  /** email/mobile/cedula exists, per IP and per value looked up. */
  lookup: { perClient: 30, perAccount: 10, windowSeconds: 60 },
  /** Sending a verification or deletion message, per IP and per account. */
  messageSend: { perClient: 10, perAccount: 5, windowSeconds: 3600 },
  /** POST /user/register, per IP and per email: a 409 email_taken answers an existence lookup too. */
  register: { perClient: 20, perAccount: 5, windowSeconds: 600 },
  /** A store key reading a customer's history (GET /user/transaction/list?api_key), per IP and per key. */
  storeHistory: { perClient: 120, perAccount: 60, windowSeconds: 60 },
  /**
   * POST /backoffice/sign-in, per IP and per email. The lockout stops guessing one account's
   * password; the per-IP count stops one password tried across many staff emails (spraying).
   */
  staffSignIn: { perClient: 20, perAccount: 10, windowSeconds: 900 },
  /** GET /user/personal-data (a copy of all the program holds about the customer), per IP and per account. */
  personalData: { perClient: 20, perAccount: 5, windowSeconds: 3600 },
  /**
   * GET /backoffice/customers/:id/personal-data, per IP and per staff member. A manager downloads a
   * copy when a member asks (a few a day); hundreds an hour would be the member list taken one
   * person at a time, contacts and all, which only owners may download whole (the members CSV).
   */
  staffPersonalData: { perClient: 120, perAccount: 60, windowSeconds: 3600 },
} satisfies Record<string, RateLimitSetting>;

export type RateLimitSettings = { [K in keyof typeof DEFAULT_RATE_LIMITS]: RateLimitSetting };

export function rateRule(engine: Engine, setting: RateLimitSetting, accountOf: RateRule['accountOf']): RateRule {
  return {
    perClient: new RateLimiter(engine, setting.perClient, setting.windowSeconds * 1000),
    perAccount: new RateLimiter(engine, setting.perAccount, setting.windowSeconds * 1000),
    accountOf,
  };
}

/**
 * Keys a per-value limit on `field` of the validated body or query: the very value the route reads.
 * Validation unwraps a one-item array and makes a number a string, and a GET's query string wins
 * over its body, so such a limit runs as a preHandler, after validation. (Read before it,
 * ["victim@x"] was never counted, and a decoy body field was counted instead of the query's value.)
 */
export function validatedField(part: 'body' | 'query', field: string): (request: FastifyRequest) => string | undefined {
  return (request) => {
    const value = (request[part] as Record<string, unknown> | null | undefined)?.[field];
    return typeof value === 'string' ? value : undefined;
  };
}
