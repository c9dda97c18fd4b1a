import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../../shared/errors';

// Validation coerces a string where a number is expected, and its coercion is lenient: "0x10" reads
// 16, " 5 " reads 5, "Infinity" passes as an integer above any maximum, true reads 1 and null 0.
// Before validation, every number field of a route's schema is checked against what clients really
// send: a JSON number, or a string of plain decimal digits ("12", "-3", "12.50"). Integers must
// also be safe integers (below 2^53), so no id, page or amount ever leaves the range a database
// column holds exactly.

type Schema = { [key: string]: unknown };

const PLAIN_DECIMAL = /^-?\d{1,30}(\.\d{1,30})?$/;

// The values are read before validation coerces them, and a refusal is raised after the route's
// credential checks (which also run before validation): an unknown caller gets its 401 first.
export function registerStrictNumbers(app: FastifyInstance): void {
  const refusals = new WeakMap<FastifyRequest, unknown>();
  // Callback hooks: every request passes both (an async hook costs a promise and a microtask each).
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const schema = request.routeOptions.schema as { body?: Schema; querystring?: Schema; params?: Schema } | undefined;
    if (schema) {
      try {
        if (schema.querystring) checkNumbers(schema.querystring, request.query, '');
        if (schema.params) checkNumbers(schema.params, request.params, '');
        if (schema.body) checkNumbers(schema.body, request.body, '');
      } catch (error) {
        refusals.set(request, error);
      }
    }
    done();
  });
  app.addHook('preHandler', (request: FastifyRequest, _reply, done) => {
    const refusal = refusals.get(request);
    if (refusal === undefined) done();
    else done(refusal as Error);
  });
}

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/**
 * Throws 400 validation_failed at the first number field whose value is not a plain number, the
 * first value validation would change by coercing it (refuseCoercion), or the first list sent where
 * the schema takes one value.
 */
export function checkNumbers(schema: Schema, value: unknown, path: string): void {
  const types = typesOf(schema);
  if (types === null) return;
  if (Array.isArray(value)) {
    if (types.has('array')) {
      const items = itemSchemas(schema);
      for (const [index, item] of value.entries()) for (const each of items) checkNumbers(each, item, `${path}.${index}`);
    } else if ([...types].every((type) => SCALAR_TYPES.has(type))) {
      // Validation (`coerceTypes: 'array'`) would unwrap a one-item list where one value is
      // expected: `{"card_number": ["a"]}` checked in "a". No client sends a list for a single value
      // (compat-notes), so one is refused by name, whatever its length, in the query or body alike.
      // (A lone value where a list is expected is still taken: `?ids=4`, a form's single `taxes`.)
      const field = path || 'request';
      throw new ServiceError('validation_failed', `${field} must be a single value, not a list.`, field);
    }
    return;
  }
  if (typeof value === 'object' && value !== null) {
    if (!types.has('object')) return;
    const record = value as Record<string, unknown>;
    for (const [name, property] of propertySchemas(schema)) {
      if (record[name] !== undefined) checkNumbers(property, record[name], path ? `${path}.${name}` : name);
    }
    return;
  }
  const refusal = types.has('number') || types.has('integer') ? refuse(value, types, schema) : refuseCoercion(value, types, schema);
  if (refusal) {
    const field = path || 'request';
    throw new ServiceError('validation_failed', `${field} ${refusal}.`, field);
  }
}

function refuse(value: unknown, types: Set<string>, schema: Schema): string | null {
  const integerOnly = types.has('integer') && !types.has('number');
  if (typeof value === 'string') {
    // A number or a few words ('' or 'null' to turn a setting off): only those words pass as words.
    if (types.has('string')) {
      const literals = stringLiterals(schema);
      if (literals === null || literals.has(value)) return null;
    }
    if (!PLAIN_DECIMAL.test(value)) return 'must be a number written in decimal digits';
    return outOfRange(Number(value), integerOnly);
  }
  if (typeof value === 'number') return outOfRange(value, integerOnly);
  if (typeof value === 'boolean') return types.has('boolean') ? null : 'must be a number, not true or false';
  if (value === null) return types.has('null') ? null : 'must be a number, not null';
  return null;
}

/**
 * What validation would coerce into a different value on a field that takes no number: a JSON
 * number past 2^53 (or written with an exponent) for a text field reached it with digits lost —
 * receipt 90071992547409931 was stored, and voided, as …940 — and 0, false or "" for an object
 * that may be null became null, erasing it. A whole number in range still passes as text (POS
 * systems send receipt numbers as numbers), as does true/false where the text takes those words.
 */
function refuseCoercion(value: unknown, types: Set<string>, schema: Schema): string | null {
  if (types.has('string')) {
    if (typeof value === 'number') {
      const exact = Number.isInteger(value) ? Number.isSafeInteger(value) : Number.isFinite(value) && !/e/i.test(String(value));
      return exact ? null : 'must be sent as text (in quotes): as a number it loses digits';
    }
    if (typeof value === 'boolean' && !types.has('boolean')) {
      const literals = stringLiterals(schema);
      return literals !== null && literals.has(String(value)) ? null : 'must be text, not true or false';
    }
    return null;
  }
  if (types.has('object') && !types.has('boolean') && value !== null && typeof value !== 'object') {
    return types.has('null') ? 'must be an object or null' : 'must be an object';
  }
  return null;
}

function outOfRange(value: number, integerOnly: boolean): string | null {
  if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return 'is out of range';
  return integerOnly && Number.isInteger(value) && !Number.isSafeInteger(value) ? 'is out of range' : null;
}

// A route's schemas are fixed objects: what is derived from each is computed once (every request
// of every route with a schema walks them).
const typesCache = new WeakMap<Schema, Set<string> | null>();
const propertiesCache = new WeakMap<Schema, Array<[string, Schema]>>();
const itemsCache = new WeakMap<Schema, Schema[]>();
const literalsCache = new WeakMap<Schema, Set<string> | null>();

function once<T>(cache: WeakMap<Schema, T>, schema: Schema, derive: (schema: Schema) => T): T {
  if (cache.has(schema)) return cache.get(schema) as T;
  const value = derive(schema);
  cache.set(schema, value);
  return value;
}

/** The JSON types a schema accepts (through anyOf/oneOf/allOf and `nullable`); null: anything. */
function typesOf(schema: Schema): Set<string> | null {
  return once(typesCache, schema, deriveTypes);
}

function deriveTypes(schema: Schema): Set<string> | null {
  const branches = unionBranches(schema);
  if (branches) {
    const all = new Set<string>();
    for (const branch of branches) {
      const types = typesOf(branch);
      if (types === null) return null;
      for (const type of types) all.add(type);
    }
    return all;
  }
  const type = schema.type;
  if (type === undefined) return null;
  const types = new Set<string>(Array.isArray(type) ? (type as string[]) : [type as string]);
  if (schema.nullable === true) types.add('null');
  return types;
}

/** The only strings a schema takes when every branch of it that is a string is a const or an enum; null: any string. */
function stringLiterals(schema: Schema): Set<string> | null {
  return once(literalsCache, schema, deriveLiterals);
}

function deriveLiterals(schema: Schema): Set<string> | null {
  const branches = unionBranches(schema);
  if (branches) {
    const all = new Set<string>();
    for (const branch of branches) {
      if (typesOf(branch)?.has('string') === false) continue;
      const literals = stringLiterals(branch);
      if (literals === null) return null;
      for (const literal of literals) all.add(literal);
    }
    return all;
  }
  if (typeof schema.const === 'string') return new Set([schema.const]);
  if (Array.isArray(schema.enum)) return new Set((schema.enum as unknown[]).filter((item): item is string => typeof item === 'string'));
  return null;
}

/** anyOf / oneOf branches, or allOf's parts (an intersection of objects: all their properties). */
function unionBranches(schema: Schema): Schema[] | null {
  const branches = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Schema[] | undefined;
  return Array.isArray(branches) ? branches : null;
}

function propertySchemas(schema: Schema): Array<[string, Schema]> {
  return once(propertiesCache, schema, deriveProperties);
}

function deriveProperties(schema: Schema): Array<[string, Schema]> {
  const branches = unionBranches(schema) ?? [schema];
  return branches.flatMap((branch) => Object.entries((branch.properties ?? {}) as Record<string, Schema>));
}

function itemSchemas(schema: Schema): Schema[] {
  return once(itemsCache, schema, deriveItems);
}

function deriveItems(schema: Schema): Schema[] {
  const branches = unionBranches(schema) ?? [schema];
  return branches.flatMap((branch) => (branch.items && typeof branch.items === 'object' && !Array.isArray(branch.items) ? [branch.items as Schema] : []));
}
