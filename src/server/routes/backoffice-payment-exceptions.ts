import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../core/engine';
import { listPaymentExceptionsForStaff, resolvePaymentExceptionAsStaff, type StaffPaymentException } from '../../core/payments/exceptions/staff-payment-exceptions';
import { NumericIdParams } from '../../shared/schemas/backoffice';
import { PaymentExceptionsQuery, ResolvePaymentExceptionBody, StaffPaymentExceptionSchema } from '../../shared/schemas/backoffice-payment-exceptions';
import { minorUnitDigits } from '../../shared/currency-codes';
import { toIso } from '../../shared/time';
import { requireStaff, staffOf } from '../auth/staff';

const tags = ['Back office'];
const config = { style: 'resource' as const };

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
    customer: x.customer && { id: x.customer.id, first_name: x.customer.firstName, last_name: x.customer.lastName, email: x.customer.email, phone: x.customer.phone },
    resolution: x.resolution,
    date_created: toIso(x.createdAt),
    date_resolved: x.resolvedAt === null ? null : toIso(x.resolvedAt),
  };
}

/** Payment exceptions in the back office: owners and managers list them and refund or credit one (audited). */
export const backOfficePaymentExceptionRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const staff = requireStaff(engine, 'payments.manage');
  app.get(
    '/backoffice/payment-exceptions',
    { config, preValidation: staff, schema: { tags, querystring: PaymentExceptionsQuery, response: { 200: Type.Object({ items: Type.Array(StaffPaymentExceptionSchema) }) } } },
    async (request) => ({ items: (await listPaymentExceptionsForStaff(engine, staffOf(request), { status: request.query.status ?? 'open' })).map(toWire) }),
  );
  app.post(
    '/backoffice/payment-exceptions/:id/resolve',
    { config, preValidation: staff, schema: { tags, params: NumericIdParams, body: ResolvePaymentExceptionBody, response: { 200: StaffPaymentExceptionSchema } } },
    async (request) => toWire(await resolvePaymentExceptionAsStaff(engine, staffOf(request), request.params.id, request.body.action)),
  );
};
