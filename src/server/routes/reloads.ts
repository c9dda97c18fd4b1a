import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { reloadQuickPay, reloadStatus } from '../../core/payments/reloads/reload-quick-pay';
import { ServiceError } from '../../shared/errors';
import { ReloadBody, ReloadSchema, ReloadStatusQuery, SessionOnlyQuery } from '../../shared/schemas/payments';
import { customerOf, requireSession } from '../auth/session';
import { namingProfileField, profileNumberOf } from './billing-profile-field';
import { reloadWire } from './payments-wire';

const tags = ['Reloads'];
const config = { style: 'legacy' as const };

/** The idempotency key: the `Idempotency-Key` header or the body's `idempotency_key` (the same when both). */
function idempotencyKeyOf(header: string | string[] | undefined, field: string | undefined): string | undefined {
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader !== undefined && field !== undefined && fromHeader !== field) {
    throw new ServiceError('validation_failed', 'The Idempotency-Key header and idempotency_key differ: send one.', 'idempotency_key');
  }
  return fromHeader ?? field;
}

/**
 * Reloads of the quick-pay balance from a billing profile: the charge, and the status poll for a
 * charge whose result the gateway reports late.
 */
export const reloadRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const session = requireSession(engine);

  app.post(
    '/user/billing-profile/reload',
    { config, preValidation: session, schema: { tags, querystring: SessionOnlyQuery, body: ReloadBody, response: { 200: ReloadSchema } } },
    async (request) => {
      // The contract's reload field is user_billingprofile (its text says user_billingProfile_id: both are read).
      const profile = profileNumberOf(request.body, 'user_billingprofile');
      const outcome = await namingProfileField(
        profile.field,
        reloadQuickPay(engine, customerOf(request), {
          profileId: profile.id,
          amount: request.body.amount,
          idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key'], request.body.idempotency_key),
        }),
      );
      return reloadWire(outcome);
    },
  );

  app.get(
    '/user/billing-profile/reload/status',
    { config, preValidation: session, schema: { tags, querystring: ReloadStatusQuery, response: { 200: ReloadSchema } } },
    async (request) => reloadWire(await reloadStatus(engine, customerOf(request), request.query.transaction)),
  );
};
