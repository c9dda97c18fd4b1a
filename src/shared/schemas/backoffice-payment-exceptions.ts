import { Type } from 'typebox';
import { IsoTimestamp, Nullable } from './common';

// The back office's payment exceptions (the staff face of GET /payment-exceptions and its resolve):
// money the gateway took that the ledger could not settle, for owners and managers to act on.

// Paged as the audit log is: offset/limit, and the filter's total.
const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1-100, default 25' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'items to skip, default 0' })),
};

export const UnfinishedPaybacksQuery = Type.Object(paging);

export const PaymentExceptionsQuery = Type.Object({
  ...paging,
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('refunding'), Type.Literal('refunded'), Type.Literal('credited'), Type.Literal('settled'), Type.Literal('all')], { description: 'open (the default: with refunds whose answer was lost) | refunding | refunded | credited | settled | all' })),
});

export const ResolvePaymentExceptionBody = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('credit')]) });

export const PaymentExceptionCustomerSchema = Type.Object({
  id: Type.Integer(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
});

export const StaffPaymentExceptionSchema = Type.Object({
  id: Type.Integer(),
  kind: Type.String({ description: 'paid_without_gift | reload_refused' }),
  status: Type.String({ description: 'open | refunding | refunded | credited | settled' }),
  charge_id: Type.Integer(),
  purpose: Type.String(),
  amount: Type.Integer({ description: 'minor units of currency (as every back-office amount)' }),
  currency: Type.String(),
  currency_digits: Type.Integer({ description: 'the currency’s minor-unit digits (2 for USD, 3 for KWD)' }),
  /** The account behind the charge; null for a guest's eGift. */
  customer: Nullable(PaymentExceptionCustomerSchema),
  /** A guest eGift buyer's contact as the purchase took it (never card data); null with an account, or for a charge made before it was kept. */
  guest_buyer: Nullable(Type.Object({ name: Type.String(), email: Type.String() })),
  resolution: Nullable(Type.String()),
  date_created: IsoTimestamp,
  date_resolved: Nullable(IsoTimestamp),
});

export const UnfinishedPaybackSchema = Type.Object({
  id: Type.Integer(),
  customer_id: Type.Integer(),
  customer: Nullable(PaymentExceptionCustomerSchema),
  status: Type.String({ description: 'refunding while unfinished; paid | partial | refused once finished' }),
  amount: Type.Integer({ description: 'minor units asked for' }),
  amount_paid: Type.Integer({ description: 'minor units that left the balance for good' }),
  currency: Nullable(Type.String()),
  currency_digits: Type.Integer(),
  stuck: Type.Boolean({ description: 'unfinished for more than a day' }),
  refunds: Type.Array(Type.Object({ amount: Type.Integer(), status: Type.String(), brand: Nullable(Type.String()), last4: Nullable(Type.String()) })),
  date_created: IsoTimestamp,
});
