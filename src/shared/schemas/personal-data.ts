import { Type } from 'typebox';
import { IsoTimestamp, Nullable } from './common';

// The copy of a person's data one program holds (GDPR Art. 15 access, Art. 20 portability): one
// JSON document for the back office's download and the customer's own GET /user/personal-data.
// Times are ISO 8601 UTC, amounts integers in the currency's minor units. What is left out, and
// why, is in docs/decisions.md ("Sixteenth round: a copy of a person's data").

/** Bumped when a field changes meaning or goes; new fields may come within a version. */
export const PERSONAL_DATA_VERSION = 1;

const When = Nullable(IsoTimestamp);
const Amount = Type.Integer({ description: 'minor units of the currency (cents; points are whole)' });
const StoreRef = Nullable(Type.String({ description: 'the store’s name' }));

export const PersonalDataSchema = Type.Object({
  format: Type.Literal('punchcard.personal-data'),
  version: Type.Literal(PERSONAL_DATA_VERSION),
  generated_at: IsoTimestamp,
  program: Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'the program (the controller) whose copy this is; other programs answer for their own' }),
  person: Type.Object({
    id: Type.Integer(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Nullable(Type.String()),
    email_verified_at: When,
    phone: Nullable(Type.String({ description: 'E.164' })),
    phone_verified_at: When,
    national_id: Nullable(Type.String()),
    passport_number: Nullable(Type.String()),
    birthdate: When,
    address: Type.Object({
      line1: Nullable(Type.String()),
      line2: Nullable(Type.String()),
      city: Nullable(Type.String()),
      region: Nullable(Type.String()),
      postal_code: Nullable(Type.String()),
      country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    }),
    pet: Nullable(Type.Object({ name: Nullable(Type.String()), birthdate: When })),
    status: Type.String(),
    created_at: IsoTimestamp,
  }),
  membership: Type.Object({
    joined_at: IsoTimestamp,
    language: Nullable(Type.String()),
    contact_consent: Type.Object({ email: Type.Boolean(), sms: Type.Boolean() }, { description: 'what the person agreed to be contacted by (the interface’s contact_consent 0–3)' }),
    newsletters: Type.Unknown({ description: 'the newsletter choices as the app saved them' }),
    tier: Nullable(Type.String()),
    tier_since: When,
    referral_code: Type.String(),
    joined_through_referral: Type.Boolean(),
    auto_reload: Type.Object({ amount: Amount, threshold: Amount }),
    enrolled_by_another_programs_counter: Type.Boolean(),
    blocked_at: When,
    blocked_reason: Nullable(Type.String()),
    flagged: Type.Boolean(),
    flagged_reason: Nullable(Type.String()),
    app_devices: Type.Object({ android: Type.Integer(), ios: Type.Integer() }, { description: 'how many devices receive the app’s notifications (their push tokens are not given)' }),
    custom_fields: Type.Array(Type.Object({ field: Type.String(), value: Type.String() })),
  }),
  balances: Type.Array(Type.Object({ currency: Type.String(), name: Type.String(), code: Nullable(Type.String()), balance: Amount })),
  loyalty_cards: Type.Array(Type.Object({ number: Type.String(), status: Type.String(), linked_at: IsoTimestamp, removed_at: When })),
  payment_cards: Type.Array(
    Type.Object(
      { brand: Type.String(), last4: Type.String(), expiry_month: Type.Integer(), expiry_year: Type.Integer(), default: Type.Boolean(), saved_at: IsoTimestamp, removed_at: When },
      { description: 'saved cards as the program keeps them: never the card number, only brand, last four digits and expiry' },
    ),
  ),
  ledger: Type.Array(
    Type.Object({
      id: Type.Integer(),
      currency: Type.String(),
      amount: Amount,
      kind: Type.String(),
      at: IsoTimestamp,
      expires_at: When,
      store: StoreRef,
      receipt_number: Nullable(Type.String()),
      reverses: Nullable(Type.Integer()),
    }),
  ),
  orders: Type.Array(
    Type.Object({
      receipt_number: Type.String(),
      store: StoreRef,
      ordered_at: IsoTimestamp,
      subtotal: Amount,
      total: Amount,
      items: Type.Array(Type.Unknown()),
      quick_pay_used: Amount,
      points_earned: Type.Integer(),
      points_spent: Type.Integer(),
      status: Type.String(),
      voided_at: When,
    }),
  ),
  history: Type.Array(
    Type.Object(
      {
        kind: Type.String(),
        at: IsoTimestamp,
        store: StoreRef,
        total: Amount,
        quick_pay_used: Amount,
        quick_pay_loaded: Amount,
        rating: Nullable(Type.Integer()),
        rating_comment: Nullable(Type.String()),
        tip: Nullable(Amount),
      },
      { description: 'the app’s history records, with the ratings and tips the person gave' },
    ),
  ),
  check_ins: Type.Array(
    Type.Object({ store: StoreRef, opened_at: IsoTimestamp, closed_at: When, identified_by: Type.String(), opened_by: Type.String(), card_number: Nullable(Type.String()), status: Type.String() }),
  ),
  payments: Type.Array(
    Type.Object({ purpose: Type.String(), amount: Amount, currency: Type.String(), status: Type.String(), at: IsoTimestamp, completed_at: When }, { description: 'card charges: reloads, auto reloads, eGifts bought' }),
  ),
  egifts: Type.Array(Type.Object({ role: Type.Union([Type.Literal('bought'), Type.Literal('received')]), amount: Amount, status: Type.String(), at: IsoTimestamp, claimed_at: When })),
  promotions: Type.Array(Type.Object({ name: Type.String(), at: IsoTimestamp })),
  referrals: Type.Array(Type.Object({ at: IsoTimestamp, points: Type.Integer() }, { description: 'friends who joined with the person’s code (not who they are)' })),
  inbox: Type.Array(Type.Object({ kind: Type.String(), title: Type.String(), body: Type.String(), at: IsoTimestamp, read_at: When, deleted_at: When })),
  messages_sent: Type.Array(Type.Object({ channel: Type.String(), to: Type.String(), template: Type.String(), status: Type.String(), at: IsoTimestamp, sent_at: When })),
  app_sessions: Type.Array(Type.Object({ started_at: IsoTimestamp, expires_at: IsoTimestamp, ended_at: When })),
});
