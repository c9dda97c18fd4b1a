import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Optional body fields sent as null are read as not sent (POS serialisers write null for what they leave out). */
    nullAsAbsent?: boolean;
  }
}

interface JsonSchema {
  type?: string | string[];
  /** Nullable() marks a schema that also takes null this way (shared/schemas/common.ts). */
  nullable?: boolean;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** What a body schema's optional properties take: those that take no string, and of them those that take null. */
interface BodyShape {
  required: Set<string>;
  noString: Map<string, { nullable: boolean }>;
}

const shapes = new WeakMap<object, BodyShape>();

function takes(schema: JsonSchema, type: string): boolean {
  if (schema.anyOf) return schema.anyOf.some((branch) => takes(branch, type));
  if (type === 'null' && schema.nullable === true) return true;
  if (schema.type === undefined) return true;
  return Array.isArray(schema.type) ? schema.type.includes(type) : schema.type === type;
}

function shapeOf(schema: JsonSchema): BodyShape {
  let shape = shapes.get(schema);
  if (!shape) {
    const noString = new Map<string, { nullable: boolean }>();
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (!takes(property, 'string')) noString.set(name, { nullable: takes(property, 'null') });
    }
    shape = { required: new Set(schema.required ?? []), noString };
    shapes.set(schema, shape);
  }
  return shape;
}

// Registered before the number checks and validation. Two things clients mean by "not given":
// - `"till": null` from a POS serialiser (routes with nullAsAbsent): a field left out, not a number
//   to refuse, and `"items": null` not a list of one missing item;
// - an empty form field on a legacy route (a web or app form posts every field: `birthdate=`,
//   `region=`): not sent, or null where the field takes null (a cleared region), for fields that
//   take no string — a text field's empty string keeps its meaning (it clears `city`).
// Only optional properties: a required one sent empty or null is still refused by name.
export function registerAbsentFields(app: FastifyInstance): void {
  // A callback hook (every request passes here; an async one costs a promise and a microtask each).
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    dropAbsentFields(request);
    done();
  });
}

function dropAbsentFields(request: FastifyRequest): void {
  const config = request.routeOptions.config;
  const nulls = config.nullAsAbsent === true;
  const blanks = config.style === 'legacy';
  if (!nulls && !blanks) return;
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const schema = request.routeOptions.schema?.body as JsonSchema | undefined;
  if (!schema) return;
  const shape = shapeOf(schema);
  const fields = body as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    if (shape.required.has(name)) continue;
    if (nulls && value === null) delete fields[name];
    else if (blanks && value === '') {
      const field = shape.noString.get(name);
      if (!field) continue;
      if (field.nullable) fields[name] = null;
      else delete fields[name];
    }
  }
}
