import { type Static, Type } from 'typebox';
import { IsoTimestamp, Nullable, ObjectStatusSchema } from './common';

// Program rules a vendor manages: earning rules, rewards (spending rules), tiers and settings.

const MAX_POINTS = 1_000_000_000;
export const MAX_AMOUNT = 1_000_000_000_000;
export const MAX_DAYS = 36_500;

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Summary = Type.String({ maxLength: 200 });
const Description = Type.String({ maxLength: 2000 });
const CurrencyId = Type.String({ minLength: 1, maxLength: 64, description: 'curr_… of a loyalty currency (code null) of the program' });
const InstantIn = Nullable(
  Type.String({ maxLength: 40, description: 'ISO 8601 date and time with a time zone (2026-12-01T00:00:00Z); null or empty: no limit' }),
);
const InstantOut = Nullable(IsoTimestamp);

// ---- earning rules

const Points = Type.Integer({ minimum: 1, maximum: MAX_POINTS, description: 'points awarded per per_amount of subtotal' });
const PerAmount = Type.Number({
  exclusiveMinimum: 0,
  maximum: 1_000_000_000,
  description: "subtotal per award, in major units of the program's quick-pay currency (1 = one dollar); at most its minor-unit precision",
});
const Rounding = Type.String({ description: 'floor, round or ceil (any case): how subtotal / per_amount × points becomes whole points' });
/**
 * An integer or null, as one schema (`nullable: true`, OpenAPI 3.0 style). A union of integer and
 * null misbehaves under type coercion: null is coerced to 0 by the integer branch, and a value
 * failing the integer branch's minimum (0) is coerced to null by the other, silently accepted.
 */
const NullableInteger = (options: { minimum: number; maximum: number; description: string }) =>
  Type.Unsafe<number | null>({ type: 'integer', nullable: true, ...options });

const MaxAward = NullableInteger({ minimum: 1, maximum: MAX_AMOUNT, description: 'most points one order earns by this rule; null: no cap' });

export const EarningRuleSchema = Type.Object({
  id: Type.String({ description: 'erul_…' }),
  name: Type.String(),
  currency: Type.String({ description: 'curr_… of the loyalty currency the points are in' }),
  points: Type.Integer(),
  per_amount: Type.Number(),
  rounding: Type.Union([Type.Literal('floor'), Type.Literal('round'), Type.Literal('ceil')]),
  max_award: Nullable(Type.Integer()),
  starts_at: InstantOut,
  ends_at: InstantOut,
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
  status: ObjectStatusSchema,
});
export type EarningRule = Static<typeof EarningRuleSchema>;

export const CreateEarningRuleBody = Type.Object({
  name: Name,
  currency: CurrencyId,
  points: Points,
  per_amount: PerAmount,
  rounding: Type.Optional(Rounding),
  max_award: Type.Optional(MaxAward),
  starts_at: Type.Optional(InstantIn),
  ends_at: Type.Optional(InstantIn),
  status: Type.Optional(Type.String({ description: 'ACTIVE (default), INACTIVE or ARCHIVED' })),
});

export const UpdateEarningRuleBody = Type.Partial(CreateEarningRuleBody);

// ---- rewards (spending rules)

export const RewardSchema = Type.Object({
  id: Type.String({ description: 'rwd_…' }),
  name: Type.String(),
  summary: Type.String(),
  description: Type.String(),
  cost: Type.Integer({ description: 'whole units of the loyalty currency (points)' }),
  currency: Type.String({ description: 'curr_… of the loyalty currency the cost is in' }),
  starts_at: InstantOut,
  ends_at: InstantOut,
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
  status: ObjectStatusSchema,
});
export type Reward = Static<typeof RewardSchema>;

export const CreateRewardBody = Type.Object({
  name: Name,
  summary: Type.Optional(Nullable(Summary)),
  description: Type.Optional(Nullable(Description)),
  cost: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
  currency: CurrencyId,
  starts_at: Type.Optional(InstantIn),
  ends_at: Type.Optional(InstantIn),
  status: Type.Optional(Type.String({ description: 'ACTIVE (default), INACTIVE or ARCHIVED' })),
});

export const UpdateRewardBody = Type.Partial(CreateRewardBody);

// ---- tiers

export const TierSchema = Type.Object({
  id: Type.String({ description: 'tier_…' }),
  name: Type.String(),
  summary: Type.String(),
  description: Type.String(),
  threshold: Type.Integer({ description: 'points earned within window_days that reach the tier' }),
  window_days: Nullable(Type.Integer({ description: 'days counted back from today; null: all time' })),
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
});
export type Tier = Static<typeof TierSchema>;

export const CreateTierBody = Type.Object({
  name: Name,
  summary: Type.Optional(Nullable(Summary)),
  description: Type.Optional(Nullable(Description)),
  threshold: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'unique per program' }),
  window_days: Type.Optional(NullableInteger({ minimum: 1, maximum: MAX_DAYS, description: 'days counted back from today; null: all time' })),
});

export const UpdateTierBody = Type.Partial(CreateTierBody);

// ---- program settings

// Payment limits are whole minor units of the quick-pay currency, as the offline caps are (1250: 12.50
// USD, ¥1,250); a change of the currency's code keeps the number, so the limit keeps its order of value.
const EGIFT_LIMIT = 'the largest eGift a buyer may send, in minor units of the program’s quick-pay currency (50000: 500.00 USD, ¥50,000)';
const RELOAD_LIMIT =
  'the largest single reload of quick pay, and the largest auto reload amount and threshold a customer may set, in minor units of the quick-pay currency';

const TIER_CURRENCY =
  'the loyalty currency (curr_…) whose earned points the tiers count (one currency, not every one added up); by default the program’s first loyalty currency';

export const ProgramSettingsSchema = Type.Object({
  points_expiry_days: Nullable(Type.Integer({ description: 'earned points expire this many days after earning; null: never' })),
  referral_points: Type.Integer({ description: 'points a member gets when someone joins through their referral link; 0: none' }),
  egift_max_amount: Nullable(Type.Integer({ description: `${EGIFT_LIMIT}; null: egift_max_amount_default` })),
  reload_max_amount: Nullable(Type.Integer({ description: `${RELOAD_LIMIT}; null: reload_max_amount_default` })),
  egift_max_amount_default: Type.Integer({ description: 'the largest eGift when egift_max_amount is null, minor units (100000: 1,000.00 USD, ¥100,000)' }),
  reload_max_amount_default: Type.Integer({ description: 'the largest reload when reload_max_amount is null, minor units' }),
  tier_currency: Nullable(Type.String({ description: TIER_CURRENCY })),
});
export type ProgramSettings = Static<typeof ProgramSettingsSchema>;

export const UpdateProgramSettingsBody = Type.Object({
  points_expiry_days: Type.Optional(NullableInteger({ minimum: 1, maximum: MAX_DAYS, description: 'null: earned points never expire' })),
  referral_points: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_AMOUNT })),
  egift_max_amount: Type.Optional(
    NullableInteger({ minimum: 1, maximum: MAX_AMOUNT, description: `${EGIFT_LIMIT}, at least one major unit; null: back to the default` }),
  ),
  reload_max_amount: Type.Optional(NullableInteger({ minimum: 1, maximum: MAX_AMOUNT, description: `${RELOAD_LIMIT}; null: back to the default` })),
  tier_currency: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: `${TIER_CURRENCY}; an active loyalty currency (422 unknown_currency, currency_not_loyalty, currency_not_active)` })),
});
