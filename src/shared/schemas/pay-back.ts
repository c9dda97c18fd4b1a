import { Type } from 'typebox';
import { IsoTimestamp, Nullable } from './common';

// Wire shapes of paying stored value back (extension: the interface has no refund of quick pay).
// Amounts are integers of minor units, as the back office's adjustments are.

export const PayBackBody = Type.Object({
  amount: Type.Integer({ description: 'minor units of the quick-pay currency, > 0, at most the balance' }),
  method: Type.String({ maxLength: 16, description: '`cash` (paid over the counter) or `card` (refunded to the cards its reloads were paid with, newest first)' }),
  idempotency_key: Type.String({ maxLength: 300, description: '1–255 visible ASCII characters: the same key answers the same pay-back (a double click pays once)' }),
  note: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'why or how (a receipt number), for the audit log; at most 500 characters' }))),
});

export const PayBackSchema = Type.Object({
  id: Type.Integer(),
  method: Type.Union([Type.Literal('cash'), Type.Literal('card')]),
  status: Type.String({ description: 'paid | partial (a card refused part: that part is back in the balance) | refunding (the gateway’s answer was lost: send the same request again)' }),
  amount: Type.Integer({ description: 'minor units asked for' }),
  amount_paid: Type.Integer({ description: 'minor units that left the balance' }),
  currency: Type.String({ description: 'the currency id (curr_…)' }),
  code: Nullable(Type.String()),
  balance: Type.Integer({ description: 'the customer’s quick-pay balance now, minor units' }),
  ledger_entry: Type.Integer(),
  note: Nullable(Type.String()),
  refunds: Type.Array(Type.Object({ amount: Type.Integer(), status: Type.String(), brand: Nullable(Type.String()), last4: Nullable(Type.String()) })),
  date_created: IsoTimestamp,
  date_completed: Nullable(IsoTimestamp),
});

export const PayBackOptionsSchema = Type.Object({
  currency: Type.String({ description: 'the quick-pay currency id (curr_…)' }),
  code: Type.String(),
  digits: Type.Integer(),
  balance: Type.Integer({ description: 'minor units' }),
  card_refundable: Type.Integer({ description: 'the most a card pay-back takes now, minor units' }),
  cards: Type.Array(Type.Object({ brand: Nullable(Type.String()), last4: Nullable(Type.String()), refundable: Type.Integer() })),
  allowed_here: Type.Boolean({ description: 'false at a paired store: pay-backs are made at central' }),
  unfinished: Type.Array(
    Type.Object({ amount: Type.Integer(), method: Type.Union([Type.Literal('cash'), Type.Literal('card')]), idempotency_key: Type.String() }),
    { description: 'card pay-backs whose gateway answer was lost (out of the balance, outcome unknown): the same request with this key finishes one' },
  ),
});
