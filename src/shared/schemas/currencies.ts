import { type Static, Type } from 'typebox';
import { IsoTimestamp, Nullable, ObjectStatusSchema } from './common';

export const CurrencySchema = Type.Object({
  id: Type.String({ description: 'curr_…' }),
  code: Nullable(Type.String({ description: 'ISO 4217 for cash-like currencies; null for loyalty currencies' })),
  name: Type.String(),
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
  status: ObjectStatusSchema,
});
export type Currency = Static<typeof CurrencySchema>;

export const CreateCurrencyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  code: Type.Optional(Nullable(Type.String({ maxLength: 3 }))),
});

export const UpdateCurrencyBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  code: Type.Optional(Nullable(Type.String({ maxLength: 3 }))),
  status: Type.Optional(Type.String()),
});
