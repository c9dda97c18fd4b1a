import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

// Cold start (issue 13, item 4): Fastify compiles every route's validation schemas (Ajv) and response
// serializers (fast-json-stringify) while the app is built — about half a second for the ~230
// operations on a 2-core machine, before the node can answer /health. These are Fastify's own
// compilers, unchanged, with each route's compilation deferred: a route's validator or serializer is
// compiled at its first use, or earlier by `warmUp()`, which the node runs in small slices once it
// listens. Compiled code, options and error objects are exactly what Fastify would have built.

type Compile<F> = (route: unknown) => F;
/** Fastify's validator: called with (data, ctx?), read for `.errors` and `.schemaEnv`. */
type Validator = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serializer = (data: unknown) => string;

/** Routes whose compilation is still deferred; warmUp() works them off. */
export class DeferredSchemas {
  readonly #pending: Array<() => void> = [];

  /** Adds one deferred compilation; returns the function that runs it once. */
  defer<F>(build: () => F): () => F {
    let compiled: F | undefined;
    const get = () => (compiled ??= build());
    this.#pending.push(get);
    return get;
  }

  get pending(): number {
    return this.#pending.length;
  }

  /**
   * Compiles what is still deferred, `batch` routes per event-loop turn so requests arriving
   * meanwhile are served between slices. A schema that fails to compile throws at its first use, as
   * Fastify would have at start: the failure is left for that request (and the tests) to report.
   */
  async warmUp(batch = 8): Promise<void> {
    while (this.#pending.length > 0) {
      for (const get of this.#pending.splice(0, batch)) {
        try {
          get();
        } catch {
          // Reported by the route's first request.
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

function lazyValidator(get: () => Validator): Validator {
  const validator: Validator = (data, context) => (context === undefined ? get()(data) : get()(data, context));
  // Fastify reads `schemaEnv` (Ajv's, to let coercion replace a root value) before the call and
  // `errors` after a failed one: both come from the compiled function.
  Object.defineProperty(validator, 'schemaEnv', { get: () => get().schemaEnv });
  Object.defineProperty(validator, 'errors', { get: () => get().errors });
  return validator;
}

/** Fastify's `schemaController.compilersFactory`: its default builders, deferring each route's compilation. */
export function deferredCompilersFactory(deferred: DeferredSchemas): CompilersFactory {
  const buildValidator = ValidatorSelector();
  const buildSerializer = SerializerSelector();
  const factory = {
    buildValidator(externalSchemas: unknown, options: unknown): Compile<Validator> {
      const compile = (buildValidator as unknown as (s: unknown, o: unknown) => Compile<Validator>)(externalSchemas, options);
      return (route) => lazyValidator(deferred.defer(() => compile(route)));
    },
    buildSerializer(externalSchemas: unknown, options: unknown): Compile<Serializer> {
      const compile = (buildSerializer as unknown as (s: unknown, o: unknown) => Compile<Serializer>)(externalSchemas, options);
      return (route) => {
        const get = deferred.defer(() => compile(route));
        return (data) => get()(data);
      };
    },
  };
  // The deferred functions behave as the compiled ones in every way Fastify uses them.
  return factory as unknown as CompilersFactory;
}
