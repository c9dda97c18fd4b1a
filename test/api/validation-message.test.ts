import AjvCompiler from '@fastify/ajv-compiler';
import { type TSchema, Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { describeValidation, type SchemaError, type ValidationFailure } from '../../src/server/errors/validation-message';
import { Nullable } from '../../src/shared/schemas/common';

// The sentence a request-schema failure is answered with, per Ajv keyword. The errors come from the
// validator the app builds (Fastify's Ajv compiler with the app's options: coercion, defaults,
// extras removed, first error only), so each case is what a client would really meet; the few
// keywords no route can produce under those options are given as Ajv would report them.

const compile = AjvCompiler()({}, { customOptions: { coerceTypes: 'array', removeAdditional: true, useDefaults: true, allErrors: false } }) as (route: {
  schema: TSchema;
}) => ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

function failure(schema: TSchema, data: unknown, context = 'body'): ValidationFailure | null {
  const validate = compile({ schema });
  if (validate(data)) return null;
  return describeValidation(validate.errors ?? [], context);
}

const body = (properties: Record<string, TSchema>) => Type.Object(properties);

describe('validation messages', () => {
  it('required: "x is required." naming the missing property; inside a list or object by its whole path', () => {
    expect(failure(body({ name: Type.String() }), {})).toEqual({ field: 'name', message: 'name is required.' });
    const items = body({ items: Type.Array(Type.Object({ name: Type.String(), quantity: Type.Number() })) });
    expect(failure(items, { items: [{ name: 'Latte' }] })).toEqual({ field: 'items.0.quantity', message: 'items.0.quantity is required.' });
  });

  it('minLength: 1 is "must not be empty", more is "at least n characters"', () => {
    expect(failure(body({ name: Type.String({ minLength: 1 }) }), { name: '' })).toEqual({ field: 'name', message: 'name must not be empty.' });
    expect(failure(body({ password: Type.String({ minLength: 8 }) }), { password: 'short' })).toEqual({
      field: 'password',
      message: 'password must be at least 8 characters.',
    });
  });

  it('maxLength: "at most n characters"', () => {
    expect(failure(body({ label: Type.String({ maxLength: 100 }) }), { label: 'x'.repeat(101) })).toEqual({
      field: 'label',
      message: 'label must be at most 100 characters.',
    });
    expect(failure(body({ initial: Type.String({ maxLength: 1 }) }), { initial: 'ab' })?.message).toBe('initial must be at most 1 character.');
  });

  it('minimum, maximum, exclusiveMinimum, exclusiveMaximum: the limit in words', () => {
    const query = body({ limit: Type.Integer({ minimum: 1, maximum: 100 }) });
    expect(failure(query, { limit: '0' }, 'querystring')).toEqual({ field: 'limit', message: 'limit must be at least 1.' });
    expect(failure(query, { limit: '101' }, 'querystring')).toEqual({ field: 'limit', message: 'limit must be at most 100.' });
    expect(failure(body({ amount: Type.Number({ exclusiveMinimum: 0 }) }), { amount: 0 })).toEqual({ field: 'amount', message: 'amount must be greater than 0.' });
    expect(failure(body({ rate: Type.Number({ exclusiveMaximum: 1 }) }), { rate: 1 })).toEqual({ field: 'rate', message: 'rate must be less than 1.' });
  });

  it('type: what the value must be', () => {
    expect(failure(body({ limit: Type.Integer() }), { limit: 'abc' }, 'querystring')).toEqual({ field: 'limit', message: 'limit must be an integer.' });
    expect(failure(body({ amount: Type.Number() }), { amount: 'ten' })?.message).toBe('amount must be a number.');
    expect(failure(body({ name: Type.String() }), { name: { first: 'Ana' } })?.message).toBe('name must be a string.');
    expect(failure(body({ active: Type.Boolean() }), { active: 'maybe' })?.message).toBe('active must be true or false.');
    expect(failure(body({ items: Type.Array(Type.String()) }), { items: { a: 1 } })?.message).toBe('items must be an array.');
    expect(failure(body({ hours: Type.Object({}) }), { hours: 'always' })?.message).toBe('hours must be an object.');
    expect(failure(Type.Object({ n: Type.Unsafe({ type: ['string', 'null'] }) }), { n: {} })?.message).toBe('n must be a string or null.');
  });

  it('type of the whole body: names the part of the request, the field stays "body"', () => {
    expect(failure(body({ name: Type.Optional(Type.String()) }), 'text')).toEqual({ field: 'body', message: 'The request body must be an object.' });
  });

  it('a nested value is named by its path, as the field is', () => {
    const lines = body({ items: Type.Array(Type.Object({ name: Type.String({ maxLength: 200 }) })) });
    expect(failure(lines, { items: [{ name: 'ok' }, { name: 'x'.repeat(201) }] })).toEqual({
      field: 'items.1.name',
      message: 'items.1.name must be at most 200 characters.',
    });
  });

  it('enum: the accepted values when the list is short, a plain sentence when it is long', () => {
    expect(failure(body({ language: Type.Enum(['en', 'es']) }), { language: 'fr' })).toEqual({ field: 'language', message: 'language must be one of: en, es.' });
    const many = Array.from({ length: 12 }, (_, i) => `v${i}`);
    expect(failure(body({ code: Type.Enum(many) }), { code: 'zz' })).toEqual({ field: 'code', message: 'code is not an accepted value.' });
  });

  it('a union of literals (TypeBox) lists its values, not its first branch', () => {
    const status = body({ status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]) });
    expect(failure(status, { status: 'deleted' })).toEqual({ field: 'status', message: 'status must be one of: active, disabled.' });
    const nullableStatus = body({ status: Nullable(Type.Union([Type.Literal('active'), Type.Literal('inactive')])) });
    expect(failure(nullableStatus, { status: 'x' })?.message).toBe('status must be one of: active, inactive, null.');
    // A union inside an object branch of another union is told from its own branches.
    const ref = body({ ref: Type.Union([Type.Integer(), Type.Object({ status: Type.Union([Type.Literal('open'), Type.Literal('closed')]) })]) });
    expect(failure(ref, { ref: { status: 'x' } })).toEqual({ field: 'ref', message: 'ref.status must be one of: open, closed.' });
  });

  it('a union that refused the type lists the types; one that refused a limit says which', () => {
    const storeId = body({ store_id: Type.Union([Type.Null(), Type.Integer()]) });
    expect(failure(storeId, { store_id: 'main' })).toEqual({ field: 'store_id', message: 'store_id must be null or an integer.' });
    // A Nullable(String) too long is too long, not "must be null".
    expect(failure(body({ region: Nullable(Type.String({ maxLength: 200 })) }), { region: 'x'.repeat(201) })).toEqual({
      field: 'region',
      message: 'region must be at most 200 characters.',
    });
    // The object branch matched the shape: its own field's limit is the message; the field stays the union's.
    const ref = body({ transaction: Type.Union([Type.Integer({ minimum: 1 }), Type.Object({ id: Type.Integer({ minimum: 1 }) })]) });
    expect(failure(ref, { transaction: { id: 0 } })).toEqual({ field: 'transaction', message: 'transaction.id must be at least 1.' });
    expect(failure(ref, { transaction: 0 })).toEqual({ field: 'transaction', message: 'transaction must be at least 1.' });
    expect(failure(ref, { transaction: 'abc' })).toEqual({ field: 'transaction', message: 'transaction must be an integer or an object.' });
    // Types and values mixed: no short sentence is true, so a plain one.
    const profile = body({ profile: Type.Union([Type.Integer({ minimum: 1 }), Type.Null(), Type.Literal(''), Type.Literal('null')]) });
    expect(failure(profile, { profile: 'abc' })).toEqual({ field: 'profile', message: 'profile is not valid.' });
  });

  it('const: the one accepted value', () => {
    expect(failure(body({ confirm: Type.Literal('yes') }), { confirm: 'no' })).toEqual({ field: 'confirm', message: 'confirm must be yes.' });
    expect(failure(body({ agreed: Type.Literal(true) }), { agreed: false })?.message).toBe('agreed must be true.');
  });

  it('format: what the value must look like, by format', () => {
    const fmt = (format: string, value: string) => failure(body({ v: Type.String({ format }) }), { v: value })?.message;
    expect(fmt('email', 'nope')).toBe('v must be a valid email address.');
    expect(fmt('uri', 'not a url')).toBe('v must be a valid URL.');
    expect(fmt('date-time', 'yesterday')).toBe('v must be a date and time such as 2025-01-31T09:30:00Z.');
    expect(fmt('date', '31/01/2025')).toBe('v must be a date such as 2025-01-31.');
    expect(fmt('uuid', 'abc')).toBe('v must be a valid UUID.');
    // A format without a name of its own.
    expect(fmt('byte', '***')).toBe('v is not in the expected format.');
  });

  it('pattern: "not in the expected format", never the pattern itself', () => {
    const reply = failure(body({ id: Type.String({ pattern: '^[0-9]{1,16}$' }) }), { id: 'abc' });
    expect(reply).toEqual({ field: 'id', message: 'id is not in the expected format.' });
  });

  it('minItems, maxItems, uniqueItems', () => {
    const events = body({ events: Type.Array(Type.String(), { minItems: 1, maxItems: 2, uniqueItems: true }) });
    expect(failure(events, { events: [] })).toEqual({ field: 'events', message: 'events must have at least 1 item.' });
    expect(failure(events, { events: ['a', 'b', 'c'] })).toEqual({ field: 'events', message: 'events must have at most 2 items.' });
    expect(failure(events, { events: ['a', 'a'] })).toEqual({ field: 'events', message: 'events must not contain the same item twice.' });
  });

  it('multipleOf', () => {
    expect(failure(body({ n: Type.Integer({ multipleOf: 5 }) }), { n: 7 })).toEqual({ field: 'n', message: 'n must be a multiple of 5.' });
  });

  it('additionalProperties: the app strips extras instead of refusing them; were one refused, the sentence names it', () => {
    // removeAdditional: an unknown property of a closed object is dropped, the request goes on.
    const closed = Type.Object({ name: Type.String() }, { additionalProperties: false });
    expect(failure(closed, { name: 'x', extra: 1 })).toBeNull();
    const atRoot: SchemaError = { keyword: 'additionalProperties', instancePath: '', schemaPath: '#/additionalProperties', params: { additionalProperty: 'extra' }, message: 'must NOT have additional properties' };
    expect(describeValidation([atRoot], 'body')).toEqual({ field: 'body', message: 'The request body does not accept the property extra.' });
    expect(describeValidation([{ ...atRoot, instancePath: '/options' }], 'body')).toEqual({ field: 'options', message: 'options does not accept the property extra.' });
  });

  it('anything else keeps Ajv’s sentence after the field, as before', () => {
    const other: SchemaError = { keyword: 'dependentSchemas', instancePath: '/a', schemaPath: '#/dependentSchemas', params: {}, message: 'must be something' };
    expect(describeValidation([other], 'body')).toEqual({ field: 'a', message: 'a must be something.' });
    expect(describeValidation([{ ...other, message: undefined }], 'body')).toEqual({ field: 'a', message: 'a is not valid.' });
    expect(describeValidation([{ ...other, instancePath: '' }], undefined)?.field).toBe('request');
    expect(describeValidation([{ keyword: 'x', instancePath: '/a', schemaPath: '#/x' }], 'body')).toEqual({ field: 'a', message: 'a is not valid.' });
    expect(describeValidation([], 'body')).toBeNull();
    expect(describeValidation(undefined, 'body')).toBeNull();
  });

  it('never shows Ajv’s wording or the schema’s internals for the keywords it knows', () => {
    const cases: Array<[TSchema, unknown]> = [
      [body({ s: Type.String({ minLength: 2, maxLength: 3 }) }), { s: 'a' }],
      [body({ s: Type.String({ minLength: 2, maxLength: 3 }) }), { s: 'abcd' }],
      [body({ s: Type.String({ pattern: '^a+$' }) }), { s: 'b' }],
      [body({ s: Type.Union([Type.Literal('a'), Type.Literal('b')]) }), { s: 'c' }],
      [body({ s: Type.Union([Type.Boolean(), Type.Integer({ minimum: 0, maximum: 1 }), Type.String({ pattern: '^(true|false|1|0)$' })]) }), { s: 'maybe' }],
      [body({ s: Type.Union([Type.Boolean(), Type.Integer({ minimum: 0, maximum: 1 }), Type.String({ pattern: '^(true|false|1|0)$' })]) }), { s: 5 }],
      [body({ s: Type.Array(Type.Integer(), { minItems: 1 }) }), { s: [] }],
    ];
    for (const [schema, data] of cases) {
      const message = failure(schema, data)?.message ?? '';
      expect(message).not.toMatch(/must NOT|must match|equal to|allowed values|anyOf|oneOf|#\/|\^|\$|>=|<=/);
      expect(message).toMatch(/^s /);
    }
  });
});
