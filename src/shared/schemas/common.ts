import { type Static, type TSchema, Type } from 'typebox';

// Wire shapes shared by the server (validation, serialisation, OpenAPI) and the renderer (types).

export const OBJECT_STATUSES = ['ACTIVE', 'INACTIVE', 'ARCHIVED'] as const;
export type ObjectStatus = (typeof OBJECT_STATUSES)[number];

export const ObjectStatusSchema = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE'), Type.Literal('ARCHIVED')], {
  description: 'ACTIVE, INACTIVE (paused) or ARCHIVED (retired); see docs/decisions.md',
});

const NUMBER_TYPES = new Set(['number', 'integer', 'boolean']);

/**
 * The schema, or null. A number or boolean is written `{type, nullable: true}` (OpenAPI 3.0's own
 * form), not an anyOf with null: validation coerces types, and in an anyOf the first branch turns
 * null into 0 or false — an offline cap "removed" with null became a cap of 0. Strings keep the
 * anyOf: there a form's empty field ("pin=") that the string branch refuses becomes null.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && NUMBER_TYPES.has(type)) return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
  return Type.Union([schema, Type.Null()]);
}

export const IsoTimestamp = Type.String({ description: 'ISO 8601 with milliseconds, UTC', format: 'date-time' });

/** Largest `limit` a list accepts; larger values are a 400, not silently clipped. */
export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 25;

export const ListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, description: `1-${MAX_PAGE_LIMIT}, default ${DEFAULT_PAGE_LIMIT}` })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'page number, the first page is 1' })),
  query: Type.Optional(Type.String({ maxLength: 500, description: 'space-delimited key:value filters, combined with AND' })),
  sort: Type.Optional(Type.String({ description: 'field to sort by (date_created by default)' })),
  order: Type.Optional(Type.String({ description: 'ASC or DESC (default DESC: newest first)' })),
});

export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    next: Type.Union([Type.String(), Type.Null()], { description: 'absolute URL of the next page; null on the last' }),
    prev: Type.Union([Type.String(), Type.Null()], { description: 'absolute URL of the previous page; null on the first' }),
  });

export const IdParamsSchema = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const EmptyObjectSchema = Type.Object({}, { additionalProperties: false, description: 'empty reply {}' });

/** A boolean as legacy clients send it: true, "true", 1 or "1" (and their false forms). Read with toFlag. */
export const FlagSchema = Type.Union([Type.Boolean(), Type.Integer({ minimum: 0, maximum: 1 }), Type.String({ pattern: '^(true|false|1|0)$' })]);

export function toFlag(value: boolean | number | string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return value === true || value === 1 || value === 'true' || value === '1';
}
