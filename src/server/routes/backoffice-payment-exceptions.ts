import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { listPaymentExceptionsForStaff, resolvePaymentExceptionAsStaff, type StaffPaymentException } from '../../core/payments/exceptions/staff-payment-exceptions';
import { finishCardPaybackAsStaff } from '../../core/payments/pay-back/finish-payback-as-staff';
import { listUnfinishedCardPaybacks, type UnfinishedPayback } from '../../core/payments/pay-back/unfinished-card-paybacks';
import { NumericIdParams, offsetPageOf } from '../../shared/schemas/backoffice';
import { PaymentExceptionsQuery, ResolvePaymentExceptionBody, StaffPaymentExceptionSchema, UnfinishedPaybackSchema, UnfinishedPaybacksQuery } from '../../shared/schemas/backoffice-payment-exceptions';
import { minorUnitDigits } from '../../shared/currency-codes';
import { toIso } from '../../shared/time';
import { requireStaff, staffOf } from '../auth/staff';

const tags = ['Back office'];
const config = { style: 'resource' as const };
const PAGE = 25;

const customerToWire = (c: StaffPaymentException['customer']) => c && { id: c.id, first_name: c.firstName, last_name: c.lastName, email: c.email, phone: c.phone };

function toWire(x: StaffPaymentException) {
  return {
    id: x.id,
    kind: x.kind,
    status: x.status,
    charge_id: x.chargeId,
    purpose: x.purpose,
    amount: x.amount,
    currency: x.currency,
    currency_digits: minorUnitDigits(x.currency),
    customer: customerToWire(x.customer),
    guest_buyer: x.guestBuyer,
    resolution: x.resolution,
    date_created: toIso(x.createdAt),
    date_resolved: x.resolvedAt === null ? null : toIso(x.resolvedAt),
  };
}

const paybackToWire = (p: UnfinishedPayback) => ({
  id: p.id,
  customer_id: p.userId,
  customer: customerToWire(p.customer),
  status: p.status,
  amount: p.amount,
  amount_paid: p.amountPaid,
  currency: p.currency.code,
  currency_digits: p.currency.digits,
  stuck: p.stuck,
  refunds: p.refunds,
  date_created: toIso(p.createdAt),
});

/**
 * Payment exceptions in the back office: owners and managers page through them and refund or credit
 * one (audited); beside them, the card pay-backs whose refund outcome is unknown, to finish.
 */
export const backOfficePaymentExceptionRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const staff = requireStaff(engine, 'payments.manage');
  app.get(
    '/backoffice/payment-exceptions',
    { config, preValidation: staff, schema: { tags, querystring: PaymentExceptionsQuery, response: { 200: offsetPageOf(StaffPaymentExceptionSchema) } } },
    async (request) => {
      const { status = 'open', limit = PAGE, offset = 0 } = request.query;
      const page = await listPaymentExceptionsForStaff(engine, staffOf(request), { status, limit, offset });
      return { items: page.items.map(toWire), total: page.total, limit, offset };
    },
  );
  app.post(
    '/backoffice/payment-exceptions/:id/resolve',
    { config, preValidation: staff, schema: { tags, params: NumericIdParams, body: ResolvePaymentExceptionBody, response: { 200: StaffPaymentExceptionSchema } } },
    async (request) => toWire(await resolvePaymentExceptionAsStaff(engine, staffOf(request), request.params.id, request.body.action)),
  );
  app.get(
    '/backoffice/unfinished-paybacks',
    { config, preValidation: staff, schema: { tags, querystring: UnfinishedPaybacksQuery, response: { 200: offsetPageOf(UnfinishedPaybackSchema) } } },
    async (request) => {
      const { limit = PAGE, offset = 0 } = request.query;
      const page = await listUnfinishedCardPaybacks(engine, staffOf(request), { limit, offset });
      return { items: page.items.map(paybackToWire), total: page.total, limit, offset };
    },
  );
  app.post(
    '/backoffice/unfinished-paybacks/:id/finish',
    { config, preValidation: staff, schema: { tags, params: NumericIdParams, response: { 200: UnfinishedPaybackSchema } } },
    async (request) => paybackToWire(await finishCardPaybackAsStaff(engine, staffOf(request), request.params.id)),
  );
};
