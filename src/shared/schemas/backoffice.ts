import { type TSchema, Type } from 'typebox';
import { IsoTimestamp, Nullable } from './common';

// Wire shapes of the back office (/backoffice/*): the screens at /admin and scripts of the staff use them.

export const StaffRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('store_manager')]);

/** A store id or null (Nullable keeps null from being coerced to 0). */
const NullableId = Nullable(Type.Integer());

export const StaffSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: StaffRoleSchema,
  store_id: Nullable(Type.Integer()),
  status: Type.Union([Type.Literal('invited'), Type.Literal('active'), Type.Literal('disabled')]),
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
  has_password: Type.Optional(Type.Boolean({ description: 'GET /backoffice/me only: false for an owner signed in by a one-time link who has not chosen a password (POST /backoffice/me/password)' })),
  invitation: Type.Optional(
    Type.Union(
      [
        Type.Object({
          expires_at: IsoTimestamp,
          expired: Type.Boolean({ description: 'by the node’s clock; inviting the email again (POST /backoffice/staff) sends a new link' }),
        }),
        Type.Null(),
      ],
      { description: 'the waiting invitation of an `invited` account (its newest link), null for any other; in GET and POST /backoffice/staff' },
    ),
  ),
});

export const StaffSessionSchema = Type.Object({
  token: Type.String({ description: 'send as Authorization: Bearer <token> to /backoffice/*' }),
  expires_at: IsoTimestamp,
  staff: StaffSchema,
});

export const SignInBody = Type.Object({ email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 256 }) });
export const TokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
export const TokenPasswordBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Type.String({ maxLength: 256 }) });
export const PasswordBody = Type.Object({ password: Type.String({ maxLength: 256 }) });
export const EmailBody = Type.Object({ email: Type.String({ maxLength: 254 }) });

export const InviteBody = Type.Object({
  email: Type.String({ maxLength: 254 }),
  name: Type.String({ maxLength: 100 }),
  role: Type.String({ maxLength: 20, description: 'owner, manager or store_manager' }),
  store_id: Type.Optional(NullableId),
});

export const StaffUpdateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100 })),
  role: Type.Optional(Type.String({ maxLength: 20 })),
  store_id: Type.Optional(NullableId),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])),
});

export const NumericIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const SignOutEverywhereSchema = Type.Object({ sessions_ended: Type.Integer() });

export const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  staff_id: Nullable(Type.Integer()),
  actor: Type.String(),
  action: Type.String(),
  object_type: Type.String(),
  object_id: Type.String(),
  before: Type.Unknown(),
  after: Type.Unknown(),
  date_created: IsoTimestamp,
});

const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1-100, default 25' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'items to skip, default 0' })),
};

export const AuditQuery = Type.Object({ ...paging, object_type: Type.Optional(Type.String({ maxLength: 40 })) });

export const offsetPageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });

// ---- stores and API keys

const Coordinates = Type.Object({ latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }) });
const Hours = Type.Record(Type.String(), Type.String({ maxLength: 100 }), { description: '{"mon": "08:00-18:00", "sat": "09:00-13:00,16:00-20:00", "sun": "closed"}; a day left out is closed' });

export const AdminStoreSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  address: Type.String(),
  address2: Nullable(Type.String()),
  city: Type.String(),
  region: Nullable(Type.String()),
  country: Type.String(),
  postal_code: Nullable(Type.String()),
  phone: Nullable(Type.String({ description: 'E.164' })),
  coordinates: Nullable(Coordinates),
  hours: Nullable(Type.Record(Type.String(), Type.String())),
  time_zone: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
  open_now: Nullable(Type.Boolean()),
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
});

const storeFields = {
  name: Type.String({ maxLength: 200 }),
  address: Type.String({ maxLength: 300 }),
  address2: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  city: Type.String({ maxLength: 200 }),
  region: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  country: Type.String({ maxLength: 2, description: 'ISO 3166-1 alpha-2' }),
  postal_code: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  phone: Type.Optional(Nullable(Type.String({ maxLength: 40, description: 'E.164, or national in the store country' }))),
  coordinates: Type.Optional(Nullable(Coordinates)),
  hours: Type.Optional(Nullable(Hours)),
  time_zone: Type.Optional(Type.String({ maxLength: 64, description: 'IANA, e.g. America/Guayaquil (default UTC)' })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
};

export const CreateStoreBody = Type.Object(storeFields);
export const UpdateStoreBody = Type.Partial(Type.Object(storeFields));

export const ApiKeySchema = Type.Object({
  id: Type.Integer(),
  store_id: Type.Integer(),
  role: Type.String(),
  label: Type.String(),
  hint: Type.String({ description: 'last four characters of the key' }),
  date_created: IsoTimestamp,
  last_used: Nullable(IsoTimestamp),
  revoked: Nullable(IsoTimestamp),
});

export const IssuedApiKeySchema = Type.Object({
  api_key: Type.String({ description: 'shown once' }),
  key: ApiKeySchema,
  screens_url: Type.String({ description: 'where a browser signs in with a cashier or kiosk key: this node’s screens (its public URL, else the address the request reached); an integration’s API base' }),
});

export const IssueApiKeyBody = Type.Object({
  role: Type.String({ maxLength: 20, description: 'cashier, kiosk or integration' }),
  label: Type.String({ minLength: 1, maxLength: 100, description: '1 to 100 characters' }),
});

// ---- customers

export const CustomerSearchQuery = Type.Object({
  q: Type.String({ maxLength: 254, description: 'email, phone, card number, cédula, passport, app code, or the start of a name' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

export const CustomerHitSchema = Type.Object({
  id: Type.Integer(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  matched_by: Type.String(),
});

export const CustomerProfileSchema = Type.Object({
  id: Type.Integer(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  cedula: Nullable(Type.String()),
  birthdate: Nullable(Type.String({ description: 'date of birth, ISO (YYYY-MM-DD); null when not known, or hidden (counter_enrolled)' })),
  status: Type.String(),
  contact_consent: Type.Object(
    { email: Type.Boolean(), sms: Type.Boolean() },
    { description: 'what the member agreed to be contacted by in this program (the interface’s contact_consent 0–3: none, email, SMS, both)' },
  ),
  language: Nullable(Type.String({ description: 'the language the member chose with this program (en, es); null: the program’s language applies' })),
  member_since: IsoTimestamp,
  counter_enrolled: Type.Boolean({
    description:
      'enrolled by a counter from another program and not yet confirmed by the customer here: the program sees the first name and the last name’s initial only (email, phone, cédula and birthdate null) until they log in or sign up with it',
  }),
  flagged: Type.Boolean(),
  blocked: Type.Boolean({ description: 'refused at check-in and orders' }),
  blocked_reason: Nullable(Type.String()),
  time_zone: Type.String({ description: 'the program’s time zone (its first store’s; UTC without a store): `expiring` is grouped by its days, and a screen shows their dates there' }),
  balances: Type.Array(
    Type.Object({
      currency: Type.String(),
      name: Type.String(),
      code: Nullable(Type.String()),
      balance: Type.Integer({ description: 'minor units' }),
      expiring: Type.Array(
        Type.Object({
          date: IsoTimestamp,
          amount: Type.Integer({ description: 'minor units expiring that day in the program’s time zone (never more than the balance)' }),
        }),
      ),
    }),
  ),
  cards: Type.Array(Type.Object({ number: Type.String(), status: Type.String() })),
  billing_profiles: Type.Array(
    Type.Object({ brand: Type.String(), last4: Type.String(), expiry_month: Type.Integer(), expiry_year: Type.Integer(), default: Type.Boolean() }, { description: 'a saved card, masked' }),
  ),
  ledger: Type.Array(
    Type.Object({
      id: Type.Integer(),
      currency: Type.String(),
      amount: Type.Integer(),
      kind: Type.String(),
      reference_type: Nullable(Type.String()),
      reference_id: Nullable(Type.String()),
      date_created: IsoTimestamp,
      store: Nullable(Type.Integer({ description: 'the store of the order the entry came from (a void’s reversal: the voided order’s); null for an entry of no order (reload, adjustment, expiry…)' })),
      store_name: Nullable(Type.String()),
      receipt_number: Nullable(Type.String({ description: 'the order’s receipt number; on a reversal (kind …_reversal), the receipt it reverses' })),
      reverses: Nullable(Type.Integer({ description: 'the ledger entry this one reverses, when it is a reversal' })),
    }),
  ),
});

export const AdjustmentBody = Type.Object({
  currency: Type.String({ maxLength: 64, description: 'the currency id (curr_…)' }),
  amount: Type.Integer({ description: 'signed, minor units' }),
  reason: Type.String({ maxLength: 1000 }),
});

export const AdjustmentSchema = Type.Object({ ledger_entry: Type.Integer(), balance: Type.Integer() });
