import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../../shared/errors';
import { itemSchemas, propertySchemas, typesOf } from './strict-numbers';

// Validation coerces with `coerceTypes: 'array'`, so a lone value becomes a one-item list where a
// list is expected (`?ids=4`, a form's single `taxes`), which clients rely on. The same option also
// unwraps a one-item list where one value is expected: `{"card_number": ["a"]}` or `?card_number[]=a`
// checked in "a" and answered 404 as if the list were a card number. No client is known to send a
// list for a single value (compat-notes), so a list there is refused by name, whatever its length,
// in the query, a form or JSON body alike.

type Schema = { [key: string]: unknown };

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

// Read before validation unwraps the list; raised after the route's credential checks (which also
// run before validation), as the number checks are: an unknown caller gets its 401 first.
export function registerSingleValues(app: FastifyInstance): void {
  const refusals = new WeakMap<FastifyRequest, unknown>();
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const schema = request.routeOptions.schema as { body?: Schema; querystring?: Schema; params?: Schema } | undefined;
    if (!schema) return;
    try {
      if (schema.querystring) checkSingleValues(schema.querystring, request.query, '');
      if (schema.body) checkSingleValues(schema.body, request.body, '');
    } catch (error) {
      refusals.set(request, error);
    }
  });
  app.addHook('preHandler', async (request: FastifyRequest) => {
    if (refusals.has(request)) throw refusals.get(request);
  });
}

/** Throws 400 validation_failed at the first list sent where the schema takes one scalar value. */
export function checkSingleValues(schema: Schema, value: unknown, path: string): void {
  const types = typesOf(schema);
  if (types === null || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    if (types.has('array')) {
      const items = itemSchemas(schema);
      for (const [index, item] of value.entries()) for (const each of items) checkSingleValues(each, item, `${path}.${index}`);
    } else if ([...types].every((type) => SCALAR_TYPES.has(type))) {
      // Only where validation would unwrap it; a list for an object is validation's own refusal.
      const field = path || 'request';
      throw new ServiceError('validation_failed', `${field} must be a single value, not a list.`, field);
    }
    return;
  }
  if (!types.has('object')) return;
  const record = value as Record<string, unknown>;
  for (const [name, property] of propertySchemas(schema)) {
    if (record[name] !== undefined) checkSingleValues(property, record[name], path ? `${path}.${name}` : name);
  }
}
