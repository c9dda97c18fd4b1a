import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { payBackOptions } from '../../core/payments/pay-back/pay-back-options';
import { payBackStoredValue } from '../../core/payments/pay-back/pay-back-stored-value';
import type { PaybackRecord } from '../../core/payments/pay-back/payback-record';
import { storeLimit } from '../../core/staff/authorize';
import { NumericIdParams } from '../../shared/schemas/backoffice';
import { PayBackBody, PayBackOptionsSchema, PayBackSchema } from '../../shared/schemas/pay-back';
import { toIso } from '../../shared/time';
import { requireStaff, staffOf } from '../auth/staff';

const tags = ['Back office'];
const config = { style: 'resource' as const };

const toWire = (p: PaybackRecord) => ({
  id: p.id,
  method: p.method,
  status: p.status,
  amount: p.amount,
  amount_paid: p.amountPaid,
  currency: p.currency.publicId,
  code: p.currency.code,
  balance: p.balance,
  ledger_entry: p.ledgerEntryId,
  note: p.note,
  refunds: p.refunds,
  date_created: toIso(p.createdAt),
  date_completed: p.completedAt === null ? null : toIso(p.completedAt),
});

/** A customer's quick pay paid back by staff: in cash, or refunded to the cards it was loaded from. */
export const backOfficePayBackRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get('/backoffice/customers/:id/pay-back', { config, preValidation: requireStaff(engine, 'customers.read'), schema: { tags, params: NumericIdParams, response: { 200: PayBackOptionsSchema } } }, async (request) => {
    const staff = staffOf(request);
    const o = await payBackOptions(engine, staff.vendorId, storeLimit(staff), request.params.id);
    return {
      currency: o.currency.publicId,
      code: o.currency.code,
      digits: o.currency.digits,
      balance: o.balance,
      card_refundable: o.cardRefundable,
      cards: o.cards,
      allowed_here: o.allowedHere,
      unfinished: o.unfinished.map((u) => ({ amount: u.amount, method: u.method, idempotency_key: u.idempotencyKey })),
    };
  });

  app.post(
    '/backoffice/customers/:id/pay-backs',
    { config, preValidation: requireStaff(engine, 'customers.write'), schema: { tags, params: NumericIdParams, body: PayBackBody, response: { 201: PayBackSchema } } },
    async (request, reply) => {
      const { amount, method, idempotency_key: idempotencyKey, note } = request.body;
      const made = await payBackStoredValue(engine, staffOf(request), request.params.id, { amount, method, idempotencyKey, note });
      return reply.code(201).send(toWire(made));
    },
  );
};
