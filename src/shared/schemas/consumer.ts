import { type Static, type TSchema, Type } from 'typebox';
import { DEFAULT_PAGE_LIMIT, IsoTimestamp, MAX_PAGE_LIMIT, Nullable } from './common';

// Wire shapes of the consumer calls the mobile apps make beyond the contract (compat-notes.md,
// "Consumer endpoints beyond the contract"): legacy style, Unix-second timestamps, integer ids,
// amounts as decimal numbers in the currency's major unit (12.5 USD; points are whole numbers).

const SessionKey = Type.Optional(Type.String({ maxLength: 200, description: 'session_identifier of POST /user/authenticate' }));
const VendorNumber = Type.Integer({ minimum: 1, description: 'vendor number' });

// ---- currencies and balances

export const CurrencyRefSchema = Type.Object({
  id: Type.Integer({ description: 'legacy integer id of the currency' }),
  name: Type.String(),
  code: Nullable(Type.String({ description: 'ISO 4217 code; null for a loyalty (points) currency' })),
  object: Type.Literal('currency'),
});
export type CurrencyRef = Static<typeof CurrencyRefSchema>;

export const QuickPayBalanceSchema = Type.Object({
  amount: Type.Number({ description: 'stored value in major units (12.5); 0 before the first reload' }),
  currency: CurrencyRefSchema,
});

export const ExpiringAmountSchema = Type.Object({
  date: Type.Integer({ description: 'Unix seconds: the soonest expiry moment of that (UTC) day' }),
  amount: Type.Number({ description: 'amount expiring that day, in major units' }),
});

export const CurrencyBalanceSchema = Type.Object({
  object: Type.Literal('currency_balance'),
  currency: CurrencyRefSchema,
  quick_pay: Type.Boolean({ description: "true for the vendor's quick-pay (stored value) currency" }),
  balance: Type.Number({ description: 'in major units; 0 when the customer holds none yet' }),
  expiring: Type.Array(ExpiringAmountSchema, { description: 'upcoming expirations grouped by UTC day, soonest first' }),
});

export const CardBalanceSchema = Type.Object({
  object: Type.Literal('card_balance'),
  number: Type.String(),
  status: Type.String({ description: 'ACTIVE, INACTIVE or ARCHIVED' }),
  balances: Type.Array(Type.Object({ currency: CurrencyRefSchema, amount: Type.Number({ description: 'in major units' }) }), {
    description: 'one entry per active currency of the vendor',
  }),
});

export const CardBalanceQuery = Type.Object({
  number: Type.String({ minLength: 1, maxLength: 64 }),
  pin: Type.Optional(Type.String({ maxLength: 32, description: 'required when the card has a pin' })),
  vendor: VendorNumber,
});

// ---- rewards and tiers

export const TierRefSchema = Type.Object({
  object: Type.Literal('tier'),
  id: Type.Integer(),
  name: Type.String(),
  summary: Type.String(),
  description: Type.String(),
  threshold: Type.Integer({ description: 'points needed to reach the tier' }),
});

export const RewardSchema = Type.Object({
  object: Type.Literal('reward'),
  id: Type.Integer({ description: 'reward rule number' }),
  name: Type.String(),
  description: Type.String({ description: 'long text (may hold line breaks)' }),
  summary: Type.String({ description: 'one line' }),
  cost: Type.Number({ description: 'price of one reward in `currency` (points are whole numbers)' }),
  available: Type.Integer({ minimum: 0, description: 'how many the customer can redeem now; the reward is ready when > 0' }),
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'balance / cost towards the next one, 0 to 1 (1 when available > 0)' }),
  currency: CurrencyRefSchema,
  expiring: Nullable(Type.Integer({ description: 'Unix seconds when the reward stops being offered; null: no end date' })),
});

export const RewardListSchema = Type.Object({
  data: Type.Array(RewardSchema),
  tier: Type.Object({
    current: Type.Union([TierRefSchema, Type.Null()], { description: "the customer's tier; null when the vendor has no tiers" }),
    next: Type.Union([TierRefSchema, Type.Null()], { description: 'the tier with the next higher threshold; null at the top' }),
  }),
});

export const RewardListQuery = Type.Object({
  session_key: SessionKey,
  vendor: Type.Optional(Type.Integer({ minimum: 1, description: "must be the session's vendor when given" })),
});

// ---- transaction history (the contract's envelope)

export const HistoryRecordSchema = Type.Object({
  object: Type.String({ description: 'record kind' }),
  id: Type.Integer({ description: 'internal transaction number' }),
  date: Type.Integer({ description: 'Unix seconds of completion' }),
  total: Type.Number(),
  address: Type.String({ description: 'store address' }),
  name: Type.String({ description: 'store name' }),
  rating: Type.Object({ comment: Nullable(Type.String()), value: Type.Integer(), window: Type.Integer() }),
  tip: Type.Object({ amount: Type.Number(), window: Type.Integer() }),
  quickpay: Type.Object({ object: Type.String(), used: Type.Number(), loaded: Type.Number(), balance: Type.Number() }),
  items: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  taxes: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  receipts: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  rewards: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  status: Type.String({ description: 'user-friendly status' }),
});

export const HistoryEnvelopeSchema = Type.Object({
  object: Type.Literal('list'),
  count: Type.Integer({ description: 'records in the whole history' }),
  page: Type.Integer(),
  page_size: Type.Integer({ description: 'the limit asked for (data may hold fewer on the last page)' }),
  total_pages: Type.Integer({ description: 'ceil(count / page_size); 0 when the history is empty' }),
  next_page_url: Nullable(Type.String({ description: 'absolute URL: this request with page + 1; null on the last page' })),
  previous_page_url: Nullable(Type.String({ description: 'absolute URL: this request with page - 1; null on page 1' })),
  data: Type.Array(HistoryRecordSchema, { description: 'newest first' }),
});

export const HistoryQuery = Type.Object({
  session_key: SessionKey,
  api_key: Type.Optional(Type.String({ maxLength: 200, description: 'the in-store variant, with `user`' })),
  user: Type.Optional(Type.Integer({ minimum: 1 })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'page number, the first page is 1' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, description: `1-${MAX_PAGE_LIMIT}, default ${DEFAULT_PAGE_LIMIT}` })),
});

/** `transaction` as the history's record id, or as {id} like other references. */
const TransactionRef = Type.Union([Type.Integer({ minimum: 1 }), Type.Object({ id: Type.Integer({ minimum: 1 }) })], {
  description: 'the history record id (or {id})',
});

export const RateTransactionBody = Type.Object({
  transaction: TransactionRef,
  rating: Type.Integer({ minimum: 1, maximum: 5, description: '1 (worst) to 5 (best)' }),
  comment: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
});

export const TipTransactionBody = Type.Object({
  transaction: TransactionRef,
  amount: Type.Number({ exclusiveMinimum: 0, description: "major units of the program's money, at most the purchase total" }),
});

// ---- cards linked to the customer

export const UserCardSchema = Type.Object({
  id: Type.Integer({ description: 'user_card number (DELETE /user/card takes it)' }),
  object: Type.Literal('user_card'),
  created: Type.Integer(),
  updated: Type.Integer(),
  status: Type.String({ description: 'ACTIVE while linked' }),
  card: Type.Object({
    number: Type.String(),
    pin: Nullable(Type.String()),
    status: Type.String({ description: 'status of the card itself: ACTIVE, INACTIVE or ARCHIVED' }),
  }),
});

export const legacyCollectionOf = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('collection'),
    count: Type.Integer(),
    data: Type.Array(item),
    next_page_url: Nullable(Type.String()),
  });

export const UserCardListSchema = legacyCollectionOf(UserCardSchema);

export const AddUserCardBody = Type.Object({
  number: Type.String({ minLength: 1, maxLength: 64 }),
  pin: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
});

/** `user_card` as the link's number or as `{id}` (both seen from real clients). */
export const RemoveUserCardBody = Type.Object({
  user_card: Type.Union([Type.Integer({ minimum: 1 }), Type.Object({ id: Type.Integer({ minimum: 1 }) })], { description: 'the link number, or {id: number}' }),
});

/** Third-party cards (a card of another program linked to the account): none exist yet. */
export const ThirdPartyCardListSchema = Type.Object({
  object: Type.Literal('collection'),
  count: Type.Integer(),
  data: Type.Array(Type.Object({})),
  next_page_url: Type.Null(),
});

// ---- account

export const ChangePasswordBody = Type.Object({
  current_password: Type.String({ maxLength: 1024 }),
  password: Type.String({ maxLength: 128 }),
});

export const DeactivateBody = Type.Object({ password: Type.String({ maxLength: 1024 }) });

// ---- stores

export const StoreSchema = Type.Object({
  object: Type.Literal('store'),
  id: Type.Integer(),
  name: Type.String(),
  address: Type.String(),
  address2: Nullable(Type.String()),
  city: Type.String(),
  region: Nullable(Type.String()),
  country: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  postal_code: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  hours: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'opening hours as the vendor wrote them, e.g. {"mon": "07:00-19:00"}' })),
  coordinates: Nullable(Type.Object({ latitude: Type.Number(), longitude: Type.Number() })),
  distance: Nullable(Type.Number({ description: 'great-circle distance in `unit` (2 decimals); null without a position or coordinates' })),
  time_zone: Type.String({ description: 'IANA time zone the hours are read in' }),
  open_now: Nullable(Type.Boolean({ description: 'open at this moment by its hours; null when it has none the node can read' })),
});

export const StoreListSchema = legacyCollectionOf(StoreSchema);

export const StoreListQuery = Type.Object({
  vendor: VendorNumber,
  latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  distance: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'radius around the position, in `unit`' })),
  unit: Type.Optional(Type.String({ maxLength: 10, description: 'km (default) or mi' })),
});

// ---- vendor content pages

export const CONTENT_SLUGS = ['terms-of-service', 'privacy-policy', 'faq'] as const;

export const VendorContentSchema = Type.Object({
  object: Type.Literal('vendor_content'),
  slug: Type.String(),
  language: Type.String({ description: 'language of the page served (two-letter code)' }),
  title: Type.String(),
  content: Type.String({ description: "HTML written by the merchant (trusted; not sanitised)" }),
  version: Type.Integer({ description: '0: the built-in default page; 1, 2, …: each PUT' }),
  updated: Nullable(Type.Integer({ description: 'Unix seconds of the last change; null for the built-in default' })),
});

export const ContentParams = Type.Object({ slug: Type.String({ maxLength: 64 }) });

export const ContentQuery = Type.Object({
  vendor: VendorNumber,
  language: Type.Optional(Type.String({ maxLength: 8, description: "en, es… or a language number (1 English, 2 Spanish); default: the vendor's language" })),
});

export const MAX_CONTENT_BYTES = 64 * 1024;

export const PutContentBody = Type.Object({
  title: Type.String({ maxLength: 200 }),
  content: Type.String({ description: `trusted merchant HTML, at most ${MAX_CONTENT_BYTES / 1024} KiB` }),
  language: Type.Optional(Type.String({ maxLength: 8, description: "two-letter code; default: the vendor's language" })),
});

export const VendorContentAdminSchema = Type.Object({
  object: Type.Literal('vendor_content'),
  slug: Type.String(),
  language: Type.String(),
  title: Type.String(),
  content: Type.String(),
  version: Type.Integer(),
  date_updated: IsoTimestamp,
});
