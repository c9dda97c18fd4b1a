import { type Static, Type } from 'typebox';
import { IsoTimestamp, Nullable, ObjectStatusSchema } from './common';

export const CardDataSchema = Type.Record(Type.String(), Type.Unknown(), { description: 'any JSON object; {} when none was given' });

export const CardSchema = Type.Object({
  id: Type.String({ description: 'card_…' }),
  number: Type.String(),
  pin: Nullable(Type.String()),
  data: CardDataSchema,
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
  status: ObjectStatusSchema,
});
export type Card = Static<typeof CardSchema>;

export const CreateCardBody = Type.Object({
  number: Type.String({ minLength: 1, maxLength: 64 }),
  pin: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 32 }))),
  data: Type.Optional(Nullable(CardDataSchema)),
});

/** Only data and status change; number and pin are checked by the use case (see docs/decisions.md). */
export const UpdateCardBody = Type.Object({
  data: Type.Optional(Nullable(CardDataSchema)),
  status: Type.Optional(Type.String()),
  number: Type.Optional(Type.String({ maxLength: 64 })),
  // A form cannot carry null: an echoed empty pin ("pin=") reads as null, like on create.
  pin: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 32 }))),
});
