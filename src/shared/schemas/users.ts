import { Type } from 'typebox';
import { FlagSchema, Nullable } from './common';

// Wire shapes of the legacy Users section: timestamps are Unix seconds, ids as the interface shows
// them (strings where it says "string (documented as integer)").

const StatusIdName = Type.Object({ id: Type.Integer(), name: Type.String() });
const VendorRef = Type.Object({ id: Type.Integer(), name: Type.String() });
const Language = Nullable(Type.Object({ object: Type.Literal('language'), id: Type.Integer(), name: Type.String(), code: Type.String() }));

export const UserSchema = Type.Object({
  object: Type.Literal('user'),
  id: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  email_address: Type.String(),
  facebook_identifier: Nullable(Type.String()),
  twitter_identifier: Nullable(Type.String()),
  google_identifier: Nullable(Type.String()),
  linkedin_identifier: Nullable(Type.String()),
  birthdate: Type.Optional(Type.Integer()),
  date_created: Type.Integer(),
  date_updated: Type.Integer(),
  status: StatusIdName,
});

export const TierSchema = Type.Object({
  object: Type.Literal('tier'),
  id: Type.Integer(),
  name: Type.String(),
  summary: Type.String(),
  description: Type.String(),
});

export const UserVendorSchema = Type.Object({
  object: Type.Literal('user_vendor'),
  language: Language,
  vendor: Type.Object({ id: Type.Integer(), name: Type.String(), object: Type.Literal('vendor') }),
  anonymous: Type.Boolean(),
  reload_amount: Type.Number(),
  reload_threshold: Type.Number(),
  contact_consent: Type.Integer(),
  created: Type.Integer(),
  billing_profile: Nullable(Type.Record(Type.String(), Type.Unknown())),
  tier: Nullable(TierSchema),
  tier_since: Type.Integer(),
  user: Type.Object({ object: Type.Literal('user'), id: Type.String(), first_name: Type.String(), last_name: Type.String() }),
});

export const LoginSessionSchema = Type.Object({
  object: Type.Literal('user_session'),
  first_login: Type.Boolean(),
  online_order_token: Type.String(),
  session_identifier: Type.String(),
  vendor_user: Type.Null(),
  user_vendor: UserVendorSchema,
});

const Reference = Nullable(Type.Record(Type.String(), Type.Unknown()));

export const ProfileSchema = Type.Object({
  object: Type.Literal('user_vendor'),
  id: Type.String(),
  anonymous: Type.Boolean(),
  billing_profile: Reference,
  contact_consent: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  flagged: Type.Boolean(),
  is_verified: Type.Object({
    status: Type.Boolean(),
    methods: Type.Object({ 'No Verification': Type.Boolean(), Email: Type.Boolean(), Sms: Type.Boolean() }),
  }),
  language: Language,
  metadata: Type.Array(
    Type.Object({
      user_metadata_id: Type.String(),
      user_metadataField_id: Type.Integer(),
      field: Type.String(),
      value: Type.String(),
      validation: Nullable(Type.String()),
      input_type: Nullable(Type.String()),
    }),
  ),
  newsletters: Type.Record(Type.String(), Type.Unknown()),
  online_order_token: Nullable(Type.String()),
  push_endpoints: Type.Object({ gcm: Type.Array(Type.String()), apns: Type.Array(Type.String()) }),
  referral_url: Type.String(),
  reload_amount: Type.Number(),
  reload_threshold: Type.Number(),
  status: Type.Object({ status_id: Type.Integer(), name: Type.String() }),
  user: Type.Object({
    object: Type.Literal('user'),
    id: Type.Integer(),
    cid: Type.Null(),
    facebook_identifier: Nullable(Type.String()),
    email_address: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    phone_number: Type.String(),
    passport_number: Nullable(Type.String()),
    address: Type.Object({
      address1: Nullable(Type.String()),
      address2: Nullable(Type.String()),
      city: Type.String(),
      region: Reference,
      country: Reference,
      postal_code: Type.String(),
    }),
    birthdate: Nullable(Type.Integer()),
    pet: Nullable(Type.Object({ name: Nullable(Type.String()), date_of_birth: Nullable(Type.Integer()) })),
    created: Type.Integer(),
    updated: Type.Integer(),
    status: StatusIdName,
  }),
  vendor: Type.Object({}),
});

export const VerificationStatusSchema = Type.Object({
  isValidated: Type.Boolean(),
  phone_number: Nullable(Type.String()),
  methods: Type.Array(Type.String()),
  status: Type.Object({ 'No Verification': Type.Boolean(), Email: Type.Boolean(), Sms: Type.Boolean() }),
});

export const BarcodeTokenSchema = Type.Object({
  id: Type.String(),
  token: Type.String(),
  barcode: Type.String({ description: 'data:image/png;base64,… (Code 128)' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  expiry: Type.Integer(),
  status: Type.Object({}),
  type: Type.Object({}),
  user: Type.Object({}),
  vendor: Type.Object({}),
});

export const EmailExistsSchema = Type.Object({ exists: Type.Boolean(), vendor: VendorRef });
export const MobileExistsSchema = Type.Object({ available: Type.Boolean() });
export const CedulaExistsSchema = Type.Object({ exists: Type.Boolean(), valid: Type.Boolean(), vendor: VendorRef });

// ---- inputs

const VendorId = Type.Integer({ minimum: 1, description: 'vendor number' });
/** Unix seconds of a birth date: from 1900 to 2100, not any number that fits. */
const Birthdate = Type.Integer({ minimum: -2_208_988_800, maximum: 4_102_444_800, description: 'Unix seconds (1900-2100)' });

/** A phone as real clients send it: the contract's {number, code} (code = calling code), or one E.164 string. */
export const PhoneNumberInput = Type.Union(
  [Type.String({ maxLength: 40 }), Type.Object({ number: Type.Optional(Type.String({ maxLength: 40 })), code: Type.Optional(Type.String({ maxLength: 8 })) })],
  { description: 'an E.164 string ("+593991234567") or {number, code}; a number without +code is read in the vendor\'s (or account\'s) country' },
);

export const RegisterBody = Type.Object({
  first_name: Type.String({ maxLength: 100 }),
  last_name: Type.String({ maxLength: 100 }),
  anonymous: Type.Optional(FlagSchema),
  email_address: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 128 }),
  terms: FlagSchema,
  vendor: VendorId,
  birthdate: Type.Optional(Birthdate),
  language: Type.Optional(Type.Integer()),
  cedula: Type.Optional(Type.String({ maxLength: 30 })),
  contact_consent: Type.Optional(Type.Integer({ minimum: 0, maximum: 3 })),
  phone_number: Type.Optional(Nullable(PhoneNumberInput)),
});

export const AuthenticateBody = Type.Object({
  email_address: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 1024 }),
  vendor: VendorId,
});

export const ResetRequestBody = Type.Object({ email_address: Type.String({ maxLength: 254 }), vendor: VendorId });
export const ResetApplyBody = Type.Object({ token: Type.String({ maxLength: 100 }), password: Type.String({ maxLength: 128 }) });

export const SessionQuery = Type.Object({ session_key: Type.Optional(Type.String({ maxLength: 200 })) });
/** The resend-verification endpoints name the key session_identifier; session_key works there too. */
export const ResendQuery = Type.Object({
  session_identifier: Type.Optional(Type.String({ maxLength: 200 })),
  session_key: Type.Optional(Type.String({ maxLength: 200 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
  country: Type.Optional(Type.String({ maxLength: 2 })),
});
export const ActivateQuery = Type.Object({ session_key: Type.Optional(Type.String({ maxLength: 200 })), token: Type.String({ maxLength: 100 }) });

export const ProfileUpdateBody = Type.Object({
  address1: Type.Optional(Type.String({ maxLength: 200 })),
  city: Type.Optional(Type.String({ maxLength: 100 })),
  region: Type.Optional(Nullable(Type.Integer())),
  country: Type.Optional(Nullable(Type.Integer())),
  postal_code: Type.Optional(Type.String({ maxLength: 20 })),
  phone_number: Type.Optional(Nullable(PhoneNumberInput)),
  password: Type.Optional(Type.String({ maxLength: 128 })),
  email_address: Type.Optional(Type.String({ maxLength: 254 })),
  current_password: Type.Optional(Type.String({ maxLength: 1024 })),
  language: Type.Optional(Type.Unknown()),
  contact_consent: Type.Optional(Type.Integer({ minimum: 0, maximum: 3 })),
  first_name: Type.Optional(Type.String({ maxLength: 100 })),
  last_name: Type.Optional(Type.String({ maxLength: 100 })),
  passport_number: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  status: Type.Optional(Type.Unknown()),
  metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
});

export const EmailExistsQuery = Type.Object({ email: Type.String({ maxLength: 254 }), vendor: VendorId });
export const MobileExistsQuery = Type.Object({ mobile: Type.String({ maxLength: 40 }), vendor: VendorId });
export const CedulaExistsQuery = Type.Object({ cedula: Type.String({ maxLength: 30 }), vendor: VendorId });
export const TokenRequestBody = Type.Object({ token_type: Type.Integer() });
export const DeletionSubmitParams = Type.Object({ vendor_id: Type.Integer(), user_id: Type.Integer() });
export const DeletionConfirmParams = Type.Object({ vendor_id: Type.Integer() });
/** Extension: the customer gives up money still held at the program (else 409 stored_value_remaining); accepted in the query or the body of both steps. */
const ForfeitBalances = Type.Optional(Type.Boolean({ description: 'extension: give up money still held at the program (else 409 stored_value_remaining); query or body, both steps' }));
export const DeletionSubmitQuery = Type.Object({ session_key: Type.Optional(Type.String({ maxLength: 200 })), forfeit_balances: ForfeitBalances });
export const DeletionForfeitBody = Type.Object({ forfeit_balances: ForfeitBalances });
export const DeletionConfirmQuery = Type.Object({ forfeit_balances: ForfeitBalances });
export const DeletionConfirmBody = Type.Object({ code: Type.String({ maxLength: 100 }), forfeit_balances: ForfeitBalances });
