import { Type } from 'typebox';
import { CurrencyRefSchema } from './consumer';
import { Nullable } from './common';

// Wire shapes of eGifts (legacy style): POST /vendor/{vendor_id}/egift buys one, POST
// /user/egift/claim claims one. Amounts are decimal numbers in the quick-pay currency's major unit,
// times Unix seconds. Card details are accepted in the request only; replies name the card by brand
// and last four digits.

const Person = (what: string) =>
  Type.Object({
    name: Type.Optional(Type.String({ maxLength: 100, description: `the ${what}'s name` })),
    email: Type.Optional(Type.String({ maxLength: 254, description: `the ${what}'s email address` })),
  });

export const EgiftParams = Type.Object({ vendor_id: Type.Integer({ minimum: 1, description: 'vendor number' }) });

export const EgiftQuery = Type.Object({
  session_key: Type.Optional(Type.String({ maxLength: 200, description: 'an authenticated eGift: the buyer session (with user_billingprofile)' })),
});

export const EgiftBody = Type.Object({
  amount: Type.Number({ description: 'in the major unit of the quick-pay currency (25 or 12.5)' }),
  buyer: Type.Optional(Person('buyer')),
  recipient: Person('recipient'),
  message: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'a note from the buyer, shown in the email' }))),
  image_url: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: 'http(s) URL of a picture chosen for the gift' }))),
  billing: Type.Optional(
    Type.Union([
      Type.Object(
        {
          name: Type.Optional(Type.String({ maxLength: 100 })),
          number: Type.String({ maxLength: 30, description: 'card number, spaces allowed; never stored' }),
          expiry: Type.Object({ month: Type.String({ maxLength: 2 }), year: Type.String({ maxLength: 4 }) }),
          cvv: Type.String({ maxLength: 4, description: 'never stored' }),
          zip_code: Type.Optional(Type.String({ maxLength: 20 })),
        },
        { description: "a guest eGift: the card is tokenized and charged once; only its brand and last four digits are kept" },
      ),
      Type.Object(
        { id: Type.Integer({ minimum: 1 }) },
        { description: "an authenticated eGift: {id} of one of the session customer's billing profiles (as user_billingprofile)" },
      ),
    ]),
  ),
  user_billingprofile: Type.Optional(Type.Integer({ minimum: 1, description: "an authenticated eGift: one of the session customer's billing profiles" })),
  user_billingProfile_id: Type.Optional(Type.Integer({ minimum: 1, description: 'the same as user_billingprofile' })),
  send_date: Type.Optional(
    Nullable(
      Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 40 })], {
        description: 'when to email the gift: Unix seconds, or an ISO 8601 date or time (a date alone is midnight UTC, a time without a zone is UTC); empty, absent or past: now. The card is charged now',
      }),
    ),
  ),
  vendor: Type.Optional(Type.Integer({ minimum: 1, description: 'sent by some clients; must be the vendor_id of the path' })),
});

const StatusIdName = Type.Object({ id: Type.Integer(), name: Type.String() });

export const EgiftSchema = Type.Object({
  object: Type.Literal('egift'),
  id: Type.Integer(),
  vendor: Type.Object({ id: Type.Integer(), name: Type.String(), object: Type.Literal('vendor') }),
  amount: Type.Number(),
  currency: CurrencyRefSchema,
  buyer: Type.Object({ name: Type.String(), email: Type.String() }),
  recipient: Type.Object({ name: Type.String(), email: Type.String() }),
  message: Nullable(Type.String()),
  image_url: Nullable(Type.String()),
  billing: Type.Object({
    card: Type.String({ description: '"xxxx xxxx xxxx 4242"' }),
    type: Type.String({ description: 'brand: Visa, Mastercard, American Express…' }),
    user_billingprofile: Nullable(Type.Integer({ description: 'the profile charged; null for a guest card' })),
  }),
  status: Type.String({ description: 'Pending (the card reports late), Scheduled (paid, sent on send_date), Sent, Claimed or Declined' }),
  transaction: Type.Integer({ description: 'the charge of the purchase (a number, as a reload reply’s `transaction`)' }),
  transaction_status: StatusIdName,
  created: Type.Integer(),
  sent: Nullable(Type.Integer()),
  claimed: Nullable(Type.Integer()),
  send_date: Nullable(Type.Integer({ description: 'Unix seconds the gift is scheduled for; null when sent once paid' })),
});

export const EgiftClaimBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64, description: 'the code of the eGift email' }) });

export const EgiftClaimSchema = Type.Object({
  object: Type.Literal('egift_claim'),
  egift: Type.Object({
    id: Type.Integer(),
    vendor: Type.Object({ id: Type.Integer(), name: Type.String(), object: Type.Literal('vendor') }),
    amount: Type.Number(),
    currency: CurrencyRefSchema,
    from: Type.Object({ name: Type.String() }),
    message: Nullable(Type.String()),
    image_url: Nullable(Type.String()),
    status: Type.Literal('Claimed'),
    claimed: Type.Integer(),
  }),
  transaction_id: Type.Integer({ description: 'the history record of the credit (object "egift")' }),
  quick_pay: Type.Object({ amount: Type.Number({ description: 'the quick-pay balance right after the claim' }), currency: CurrencyRefSchema }),
});
