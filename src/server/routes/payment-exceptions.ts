import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../core/engine';
import { listPaymentExceptions, type PaymentExceptionRecord, resolvePaymentException } from '../../core/payments/exceptions/payment-exceptions';
import { minorUnitDigits } from '../../shared/currency-codes';
import { toMajorUnits } from '../../shared/money';
import { toIso } from '../../shared/time';
import { requireOnEveryRoute } from '../auth/credential';
import { requireBearer, vendorOf } from '../auth/bearer';

// Staff see payment exceptions (issue 17, item 8): GET /payment-exceptions and
// POST /payment-exceptions/:id/resolve, with the program's admin token (resource style).

const security = [{ bearer: [] }];
const tags = ['Payment exceptions'];

const PaymentExceptionSchema = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'paid_without_gift | reload_refused' }),
  status: Type.String({ description: 'open | refunding (the gateway is being asked) | refunded | credited | settled (the charge settled by itself since)' }),
  charge_id: Type.Integer(),
  purpose: Type.String(),
  amount: Type.Number({ description: 'major units of currency' }),
  currency: Type.String(),
  user_id: Type.Union([Type.Integer(), Type.Null()]),
  resolution: Type.Union([Type.String(), Type.Null()]),
  date_created: Type.String(),
  date_resolved: Type.Union([Type.String(), Type.Null()]),
});

function toWire(x: PaymentExceptionRecord) {
  return {
    id: String(x.id),
    kind: x.kind,
    status: x.status,
    charge_id: x.chargeId,
    purpose: x.purpose,
    amount: toMajorUnits(x.amount, minorUnitDigits(x.currency)),
    currency: x.currency,
    user_id: x.userId,
    resolution: x.resolution,
    date_created: toIso(x.createdAt),
    date_resolved: x.resolvedAt === null ? null : toIso(x.resolvedAt),
  };
}

export const paymentExceptionRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  requireOnEveryRoute(app, requireBearer(engine));
  const config = { style: 'resource' as const };
  app.get(
    '/payment-exceptions',
    {
      config,
      schema: {
        tags,
        security,
        querystring: Type.Object({ status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('refunding'), Type.Literal('refunded'), Type.Literal('credited'), Type.Literal('settled'), Type.Literal('all')])) }),
        response: { 200: Type.Object({ items: Type.Array(PaymentExceptionSchema) }) },
      },
    },
    async (request) => ({ items: (await listPaymentExceptions(engine, vendorOf(request), { status: request.query.status ?? 'open' })).map(toWire) }),
  );
  app.post(
    '/payment-exceptions/:id/resolve',
    {
      config,
      schema: {
        tags,
        security,
        params: Type.Object({ id: Type.String({ pattern: '^[0-9]{1,16}$' }) }),
        body: Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('credit')]) }),
        response: { 200: PaymentExceptionSchema },
      },
    },
    async (request) => toWire(await resolvePaymentException(engine, vendorOf(request), Number(request.params.id), request.body.action)),
  );
};
