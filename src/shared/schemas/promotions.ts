import { Type } from 'typebox';
import { CurrencyRefSchema } from './consumer';
import { IsoTimestamp, Nullable } from './common';

// Promotions: the program's codes (resource style, bearer) and a customer entering one (legacy).

const Window = {
  starts_at: Type.Optional(Nullable(Type.String({ description: 'ISO 8601 with a time zone; null: from now on' }))),
  ends_at: Type.Optional(Nullable(Type.String({ description: 'ISO 8601 with a time zone; null: no end' }))),
};
const Caps = {
  total_cap: Type.Optional(Nullable(Type.Integer({ description: 'awards in all; null: no cap' }))),
  per_customer_cap: Type.Optional(Type.Integer({ description: 'awards per customer (default 1)' })),
};
const Status = Type.Optional(Type.String({ description: 'ACTIVE or PAUSED' }));

export const CreatePromotionBody = Type.Object({
  code: Type.String({ maxLength: 40, description: '3-40 letters, digits, spaces or dashes; compared without case, spaces or dashes' }),
  name: Type.String({ maxLength: 100 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  points: Type.Optional(Type.Integer({ description: 'points to award (or send reward)' })),
  currency: Type.Optional(Type.String({ maxLength: 64, description: "curr_ id of a loyalty currency; default: the program's first" })),
  reward: Type.Optional(Type.String({ maxLength: 64, description: 'rwd_ id: awards the reward (its cost in points)' })),
  ...Window,
  ...Caps,
  status: Status,
});

export const UpdatePromotionBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100 })),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  ...Window,
  ...Caps,
  status: Status,
});

export const PromotionSchema = Type.Object({
  id: Type.String(),
  code: Type.String(),
  name: Type.String(),
  description: Type.String(),
  points: Nullable(Type.Integer()),
  currency: Nullable(Type.String()),
  reward: Nullable(Type.String()),
  starts_at: Nullable(IsoTimestamp),
  ends_at: Nullable(IsoTimestamp),
  total_cap: Nullable(Type.Integer()),
  per_customer_cap: Type.Integer(),
  awarded_count: Type.Integer(),
  status: Type.String({ description: 'ACTIVE or PAUSED' }),
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
});

export const AwardPromotionBody = Type.Object({ code: Type.String({ maxLength: 100, description: 'the promotion code the customer typed' }) });

export const PromotionAwardSchema = Type.Object({
  object: Type.Literal('promotion_award'),
  promotion: Type.Object({ code: Type.String(), name: Type.String(), description: Type.String() }),
  reward: Nullable(Type.Object({ id: Type.String(), name: Type.String() })),
  amount: Type.Number({ description: 'points credited' }),
  currency: CurrencyRefSchema,
  balance: Type.Number({ description: 'the balance in that currency afterwards' }),
  transaction_id: Type.Integer({ description: 'the history record (object "promotion")' }),
});
