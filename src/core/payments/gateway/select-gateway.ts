import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { DB } from '../../storage/schema';
import type { PaymentGateway } from './payment-gateway';
import { StripeGateway } from './stripe-gateway';
import { TestGateway } from './test-gateway';

/** Which gateway a node charges through: the built-in test gateway (default) or Stripe. */
export type PaymentGatewayConfig =
  | { kind: 'test'; completeAfterPolls?: number; completeAfterMs?: number }
  | { kind: 'stripe'; secretKey: string; baseUrl?: string };

/**
 * Reads the configuration from the environment: `PUNCHCARD_PAYMENT_GATEWAY` = `test` (default) or
 * `stripe` (then `PUNCHCARD_STRIPE_SECRET_KEY` is required, `PUNCHCARD_STRIPE_API_URL` optional).
 */
export function paymentGatewayConfigFrom(env: Record<string, string | undefined>): PaymentGatewayConfig {
  const kind = (env.PUNCHCARD_PAYMENT_GATEWAY ?? 'test').trim().toLowerCase();
  if (kind === '' || kind === 'test') return { kind: 'test' };
  if (kind === 'stripe') {
    const secretKey = env.PUNCHCARD_STRIPE_SECRET_KEY;
    if (!secretKey) throw new Error('PUNCHCARD_PAYMENT_GATEWAY=stripe needs PUNCHCARD_STRIPE_SECRET_KEY.');
    return { kind: 'stripe', secretKey, ...(env.PUNCHCARD_STRIPE_API_URL ? { baseUrl: env.PUNCHCARD_STRIPE_API_URL } : {}) };
  }
  throw new Error(`Unknown payment gateway "${kind}": use test or stripe.`);
}

export function createPaymentGateway(config: PaymentGatewayConfig, context: { db: Kysely<DB>; clock: Clock }): PaymentGateway {
  if (config.kind === 'stripe') return new StripeGateway({ secretKey: config.secretKey, ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}) });
  return new TestGateway({ db: context.db, clock: context.clock, completeAfterPolls: config.completeAfterPolls, completeAfterMs: config.completeAfterMs });
}
