/**
 * The sentence a request-schema failure is answered with. Ajv stops at the first failure
 * (`allErrors: false`) and describes it in its own words ("must NOT have fewer than 1 characters",
 * "must be equal to one of the allowed values"); clients and the back office show the message as
 * it comes, so each keyword gets a plain sentence here, naming the limit but never the schema's
 * internals (no patterns, schema paths or keyword names). The field is the one the error handler
 * has always named: the missing property, else the value's path, else the part of the request.
 */

/** What Fastify hands over of one Ajv error (`FastifySchemaValidationError`). */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  /** Ajv always sets them; optional so an error built elsewhere without them still gets a sentence. */
  params?: Record<string, unknown>;
  message?: string | undefined;
}

export interface ValidationFailure {
  /** The field the reply names, exactly as before this module: unchanged for clients matching on it. */
  field: string;
  message: string;
}

/** The part of the request named when the failure is the whole body, query string, params or headers. */
const CONTEXT_NAMES: Record<string, string> = {
  body: 'The request body',
  querystring: 'The query string',
  params: 'The URL',
  headers: 'The request headers',
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  email: 'a valid email address',
  'idn-email': 'a valid email address',
  uri: 'a valid URL',
  url: 'a valid URL',
  'uri-reference': 'a valid URL',
  'date-time': 'a date and time such as 2025-01-31T09:30:00Z',
  date: 'a date such as 2025-01-31',
  time: 'a time such as 09:30:00Z',
  uuid: 'a valid UUID',
  ipv4: 'a valid IPv4 address',
  ipv6: 'a valid IPv6 address',
  hostname: 'a valid host name',
};

/** Enums and unions of constants are listed when short; longer ones get a generic sentence. */
const MAX_LISTED_VALUES = 10;
const MAX_LISTED_VALUE_LENGTH = 40;

const COMPOSITIONS = new Set(['anyOf', 'oneOf']);

/**
 * The field and message for Ajv's errors of one request part (`context`: body, querystring, params
 * or headers). Only the first error counts, except that a failed union (`anyOf`, as TypeBox writes
 * `Type.Union` and `Nullable`) is described from all its branches: "status must be one of: active,
 * disabled." rather than the first branch's "must be equal to constant".
 */
export function describeValidation(errors: readonly SchemaError[] | undefined, context?: string): ValidationFailure | null {
  const first = errors?.[0];
  if (!first) return null;
  const pathField = fieldOfPath(first.instancePath);
  // A property missing inside an item or object is named by its whole path (items.0.name), not
  // its own name alone, which read as a top-level field.
  const missing = typeof first.params?.missingProperty === 'string' ? (pathField ? `${pathField}.${first.params.missingProperty}` : first.params.missingProperty) : undefined;
  const field = missing ?? (pathField || (context ?? 'request'));
  return { field, message: describeWithin(first, errors, field, context, undefined) };
}

function fieldOfPath(instancePath: string): string {
  return instancePath.replace(/^\//, '').replace(/\//g, '.');
}

/** An error as a sentence; one that is a branch of a union (inside `scope`, when given) is told from its union. */
function describeWithin(error: SchemaError, errors: readonly SchemaError[], field: string, context: string | undefined, scope: SchemaError | undefined): string {
  const union = unionOf(error, errors, scope);
  return (union && unionMessage(union, errors, context)) || sentence(error, field, context);
}

/** The subject of a sentence: the value's path, or the part of the request for the whole of it. */
function subjectOf(error: SchemaError, context: string | undefined): string {
  const path = fieldOfPath(error.instancePath);
  if (path) return path;
  if (context) return CONTEXT_NAMES[context] ?? context;
  return 'The request';
}

/** One error as a sentence. `field` is the name used when the message falls back to Ajv's wording. */
function sentence(error: SchemaError, field: string, context?: string): string {
  const p = error.params ?? {};
  const subject = subjectOf(error, context);
  const limit = typeof p.limit === 'number' ? p.limit : undefined;
  // required (and dependentRequired): the sentence clients have always had.
  if (typeof p.missingProperty === 'string') {
    const path = fieldOfPath(error.instancePath);
    return `${path ? `${path}.` : ''}${p.missingProperty} is required.`;
  }
  switch (error.keyword) {
    case 'minLength':
      if (limit === undefined) break;
      return limit === 1 ? `${subject} must not be empty.` : `${subject} must be at least ${limit} characters.`;
    case 'maxLength':
      if (limit === undefined) break;
      return `${subject} must be at most ${count(limit, 'character')}.`;
    case 'minimum':
      if (limit === undefined) break;
      return `${subject} must be at least ${limit}.`;
    case 'maximum':
      if (limit === undefined) break;
      return `${subject} must be at most ${limit}.`;
    case 'exclusiveMinimum':
      if (limit === undefined) break;
      return `${subject} must be greater than ${limit}.`;
    case 'exclusiveMaximum':
      if (limit === undefined) break;
      return `${subject} must be less than ${limit}.`;
    case 'multipleOf':
      if (typeof p.multipleOf !== 'number') break;
      return `${subject} must be a multiple of ${p.multipleOf}.`;
    case 'type': {
      const types = typesOf(p.type);
      if (types.length === 0) break;
      return `${subject} must be ${orList(types.map((t) => TYPE_NAMES[t] ?? t))}.`;
    }
    case 'enum':
      return oneOf(subject, Array.isArray(p.allowedValues) ? p.allowedValues : []);
    case 'const':
      if (!('allowedValue' in p) || !listable([p.allowedValue])) return `${subject} is not an accepted value.`;
      return `${subject} must be ${shown(p.allowedValue)}.`;
    case 'format': {
      const name = typeof p.format === 'string' ? FORMAT_NAMES[p.format] : undefined;
      return name ? `${subject} must be ${name}.` : `${subject} is not in the expected format.`;
    }
    case 'pattern':
      return `${subject} is not in the expected format.`;
    case 'minItems':
      if (limit === undefined) break;
      return `${subject} must have at least ${count(limit, 'item')}.`;
    case 'maxItems':
      if (limit === undefined) break;
      return `${subject} must have at most ${count(limit, 'item')}.`;
    case 'uniqueItems':
      return `${subject} must not contain the same item twice.`;
    case 'additionalProperties':
      if (typeof p.additionalProperty !== 'string') break;
      return `${subject} does not accept the property ${p.additionalProperty}.`;
    case 'anyOf':
    case 'oneOf':
      // Ajv's "must match a schema in anyOf" names the schema's structure, not the value's fault.
      return `${subject} is not valid.`;
  }
  return `${field} ${error.message ?? 'is not valid'}.`;
}

/**
 * The union a branch error belongs to: the outermost anyOf/oneOf whose schema path contains it
 * (inside `scope`, when given), so a Nullable(Union of literals) is told as one list.
 */
function unionOf(error: SchemaError, errors: readonly SchemaError[], scope: SchemaError | undefined): SchemaError | undefined {
  if (COMPOSITIONS.has(error.keyword)) return undefined;
  const containing = errors.filter(
    (e) => COMPOSITIONS.has(e.keyword) && e !== scope && error.schemaPath.startsWith(`${e.schemaPath}/`) && (!scope || e.schemaPath.startsWith(`${scope.schemaPath}/`)),
  );
  return containing.reduce<SchemaError | undefined>((outer, e) => (!outer || e.schemaPath.length < outer.schemaPath.length ? e : outer), undefined);
}

/**
 * A failed union, from its branches' errors. A branch that failed on a limit or a nested field (the
 * value had that branch's shape) says what is wrong: a 300-character region of a `Nullable(String
 * maxLength 200)` is "too long", not "must be null". Branches that all refused the value's type or
 * value list what would have been accepted. Null when the branches mix both kinds of refusal in a
 * way no short sentence covers.
 */
function unionMessage(union: SchemaError, errors: readonly SchemaError[], context: string | undefined): string | null {
  const branches = errors.filter((e) => e !== union && !COMPOSITIONS.has(e.keyword) && e.schemaPath.startsWith(`${union.schemaPath}/`));
  const shapeKeywords = new Set(['type', 'const', 'enum']);
  const closer = branches.find((e) => e.instancePath !== union.instancePath || !shapeKeywords.has(e.keyword));
  if (closer) return describeWithin(closer, errors, fieldOfPath(closer.instancePath) || (context ?? 'request'), context, union);

  const subject = subjectOf(union, context);
  const values: unknown[] = [];
  const types: string[] = [];
  for (const e of branches) {
    const p = e.params ?? {};
    if (e.keyword === 'const') values.push(p.allowedValue);
    else if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) values.push(...p.allowedValues);
    else if (e.keyword === 'type') types.push(...typesOf(p.type));
  }
  if (values.length > 0) {
    // A Nullable(Union of literals): null is one more accepted value.
    if (types.some((t) => t !== 'null')) return `${subject} is not valid.`;
    return oneOf(subject, types.includes('null') ? [...values, null] : values);
  }
  if (types.length > 0) return `${subject} must be ${orList([...new Set(types)].map((t) => TYPE_NAMES[t] ?? t))}.`;
  return null;
}

function typesOf(type: unknown): string[] {
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return typeof type === 'string' ? type.split(',') : [];
}

function oneOf(subject: string, values: readonly unknown[]): string {
  const unique = [...new Set(values)];
  if (unique.length === 0 || !listable(unique)) return `${subject} is not an accepted value.`;
  if (unique.length === 1) return `${subject} must be ${shown(unique[0])}.`;
  return `${subject} must be one of: ${unique.map(shown).join(', ')}.`;
}

function listable(values: readonly unknown[]): boolean {
  return (
    values.length <= MAX_LISTED_VALUES &&
    values.every((v) => (v === null || ['string', 'number', 'boolean'].includes(typeof v)) && shown(v).length <= MAX_LISTED_VALUE_LENGTH)
  );
}

function shown(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value) ?? String(value);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
