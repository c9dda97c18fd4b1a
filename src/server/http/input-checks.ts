import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../shared/errors';

// What no field of any request may hold, refused before a route reads it:
// - U+0000 (NUL) in a string or a key. PostgreSQL cannot store it in text (SQLSTATE 22021: a 500)
//   and SQLite kept it silently; no client has a use for it. Lone surrogates are left alone: both
//   drivers store them without error, read back as U+FFFD (three from SQLite, one from PostgreSQL).
// - A body nested deeper than MAX_BODY_DEPTH. JSON.parse reads any depth, but JSON.stringify of a
//   card's data or an order's taxes overflowed the stack at ~6,000 levels (a 500).

/** Far deeper than any body of the interface (an order's items nest 3 levels; card data is free JSON). */
export const MAX_BODY_DEPTH = 64;

const NUL = '\u0000';

interface Container {
  value: object;
  depth: number;
  /** The container this one is in, and its key there: the field's path is built only to name a refusal. */
  parent: Container | null;
  key: string;
}

/**
 * Throws 400 validation_failed naming the first field with a NUL (unless `refuseNul` is false), or
 * 400 invalid_json past `maxDepth` levels (the value itself is level 1). A loop over an explicit stack, not recursion:
 * the depth a client sends must not decide the depth of this call either.
 */
export function checkInput(value: unknown, maxDepth = Infinity, refuseNul = true): void {
  if (typeof value === 'string') {
    if (refuseNul && value.includes(NUL)) throw nulIn('body');
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const stack: Container[] = [{ value, depth: 1, parent: null, key: '' }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const container = next;
    const entries: Iterable<[string | number, unknown]> = Array.isArray(container.value) ? container.value.entries() : Object.entries(container.value);
    for (const [key, child] of entries) {
      if (refuseNul && typeof key === 'string' && key.includes(NUL)) throw nulIn(pathOf(container, key));
      if (typeof child === 'string') {
        if (refuseNul && child.includes(NUL)) throw nulIn(pathOf(container, String(key)));
      } else if (typeof child === 'object' && child !== null) {
        if (container.depth >= maxDepth) throw new ServiceError('invalid_json', `The request body nests deeper than ${maxDepth} levels.`);
        stack.push({ value: child, depth: container.depth + 1, parent: container, key: String(key) });
      }
    }
  }
}

/** Query values and path parameters, on every request (a body is checked as it is decoded). */
export function registerInputChecks(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkInput(request.params);
      checkInput(request.query);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

function nulIn(field: string): ServiceError {
  return new ServiceError('validation_failed', `${field} must not contain the NUL character (U+0000).`, field);
}

/** `a.b.0.c`, as validation names a field; a NUL in a key is written out, never sent back. */
function pathOf(container: Container, key: string): string {
  const parts = [key.replaceAll(NUL, '\\u0000')];
  for (let at: Container | null = container; at?.parent; at = at.parent) parts.push(at.key);
  return parts.reverse().join('.');
}
