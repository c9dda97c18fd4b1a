import { Type } from 'typebox';
import { Nullable } from './common';
import { CurrencyRefSchema, legacyCollectionOf } from './consumer';

// Wire shapes of billing profiles, reloads and auto-reload settings (legacy style: Unix seconds,
// integer ids, amounts in major units of the quick-pay currency). The contract shows none of these
// replies; the list item follows compat-notes.md. No reply ever carries a card number or CVV.

const SessionKey = Type.Optional(Type.String({ maxLength: 200, description: 'session_identifier of POST /user/authenticate' }));
const ProfileNumber = Type.Integer({ minimum: 1, description: 'billing profile number (the `id` of a billing profile)' });

export const BillingProfileSchema = Type.Object({
  id: Type.Integer({ description: 'billing profile number' }),
  object: Type.Literal('user_billingprofile'),
  card: Type.String({ description: 'masked number, only the last four digits: "xxxx xxxx xxxx 4242"' }),
  type: Type.String({ description: 'card brand: Visa, Mastercard, American Express…' }),
  name: Type.String({ description: 'cardholder name as given ("" when none)' }),
  description: Nullable(Type.String()),
  postal_code: Nullable(Type.String()),
  expiry: Type.String({ description: 'MM/YYYY' }),
  expiry_month: Type.String({ description: 'two digits' }),
  expiry_year: Type.String({ description: 'four digits' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  is_default: Type.Boolean(),
});

export const BillingProfileListSchema = legacyCollectionOf(BillingProfileSchema);

export const SessionOnlyQuery = Type.Object({ session_key: SessionKey });

export const AddBillingProfileBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100, description: 'cardholder name' })),
  number: Type.String({ minLength: 1, maxLength: 32, description: 'card number (spaces and dashes allowed); never stored' }),
  expiry_month: Type.String({ minLength: 1, maxLength: 2, description: 'two digits, 01-12' }),
  expiry_year: Type.String({ minLength: 2, maxLength: 4, description: 'four digits' }),
  cvv: Type.String({ minLength: 1, maxLength: 4, description: 'never stored' }),
  description: Type.Optional(Type.String({ maxLength: 200 })),
  zip_code: Type.Optional(Type.String({ maxLength: 16 })),
});

/** The profile number, as the contract names it (`user_billingProfile_id`) or as the reload call does (`user_billingprofile`). */
export const ProfileIdBody = Type.Object({
  user_billingProfile_id: Type.Optional(ProfileNumber),
  user_billingprofile: Type.Optional(ProfileNumber),
});

export const ReloadBody = Type.Object({
  user_billingprofile: Type.Optional(ProfileNumber),
  user_billingProfile_id: Type.Optional(ProfileNumber),
  amount: Type.Number({ description: 'major units of the quick-pay currency (25 or 25.5), more than 0' }),
  idempotency_key: Type.Optional(Type.String({ maxLength: 255, description: 'or the Idempotency-Key header: a retry with the same key never charges twice' })),
});

export const ReloadStatusQuery = Type.Object({
  session_key: SessionKey,
  transaction: Type.Integer({ minimum: 1, description: 'the `transaction` of the reload reply' }),
});

export const TransactionStatusSchema = Type.Object({
  id: Type.Integer({ description: '1 Complete, 2 Pending, 3 Declined' }),
  name: Type.String({ description: 'Complete (the money arrived), Pending (ask the status endpoint) or Declined' }),
});

export const ReloadSchema = Type.Object({
  object: Type.Literal('reload'),
  id: Type.Integer({ description: 'the reload (charge) number' }),
  transaction: Type.Integer({ description: 'the same number: `transaction` of GET /user/billing-profile/reload/status' }),
  amount: Type.Number(),
  currency: CurrencyRefSchema,
  transaction_status: TransactionStatusSchema,
  decline_reason: Nullable(Type.String({ description: 'when Declined: the machine code (card_declined, insufficient_funds…)' })),
  history_id: Nullable(Type.Integer({ description: 'the record in GET /user/transaction/list once Complete' })),
  automatic: Type.Boolean({ description: 'true for a reload made by auto reload' }),
  user_billingprofile: Nullable(BillingProfileSchema),
  quick_pay_balance: Type.Object({ amount: Type.Number(), currency: CurrencyRefSchema }),
  created: Type.Integer(),
  updated: Type.Integer(),
});

export const ReloadSettingsSchema = Type.Object({
  object: Type.Literal('reload_settings'),
  enabled: Type.Boolean({ description: 'true only when amount, threshold and a billing profile are all set' }),
  amount: Type.Number(),
  threshold: Type.Number(),
  user_billingprofile: Nullable(Type.Integer({ description: 'the selected billing profile number' })),
  billing_profile: Nullable(BillingProfileSchema),
});

const NullableProfileNumber = Type.Union([Type.Integer({ minimum: 1 }), Type.Null(), Type.Literal(''), Type.Literal('null')], {
  description: 'billing profile number, or null (also "" or "null" in a form) to disable auto reload',
});

export const ReloadSettingsBody = Type.Object({
  amount: Type.Optional(Type.Number({ description: 'major units; 0 disables' })),
  threshold: Type.Optional(Type.Number({ description: 'major units; 0 disables' })),
  user_billingprofile: Type.Optional(NullableProfileNumber),
});
