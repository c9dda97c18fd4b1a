import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ERROR_CODES, ServiceError } from '../../shared/errors';
import { BODY_LIMIT_BYTES } from '../body/body-parsing';
import { sendError } from '../errors/error-handler';
import { styleOfPath } from '../errors/envelopes';
import { ERROR_SCHEMAS, errorResponses, type ErrorFacts, operationAnswers } from './openapi-errors';
import { routeSecurity, SECURITY_SCHEMES, staffRolesSentence } from './openapi-security';
import { operationDoc, SECTIONS } from './operation-docs';
import { isRateLimitedRoute } from './rate-limit';

const errorTable = Object.entries(ERROR_CODES)
  .map(([code, { status, message }]) => `| ${status} | \`${code}\` | ${message} |`)
  .join('\n');

/** /openapi.json is generated from the route schemas; /docs serves Swagger UI from local files (works offline). */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Punchcard',
        version,
        description:
          'Loyalty, stored-value and in-store check-in service. Resource style (/currencies, /cards) uses bearer tokens and ISO 8601 ' +
          'timestamps; legacy style (/onscreen, /user, /vendor, /countries) uses api_key or session_key query parameters and Unix seconds.\n\n' +
          'Bodies may be JSON or form fields on every method (another content type is 415 `unsupported_media_type`). Fields an operation ' +
          'does not list are ignored (old clients send extras); a field that takes one value refuses a list. Each operation lists the error ' +
          'statuses it can answer, 409, 422 and 503 with their codes; besides them, any operation can answer 500 `internal_error`, and 503 while ' +
          'the node stops or its database cannot be used (`service_unavailable`, `database_unavailable`, `storage_unavailable`, with Retry-After). ' +
          'Errors carry a stable machine code:\n\n' +
          '| status | code | message |\n|---|---|---|\n' +
          errorTable,
      },
      components: { securitySchemes: SECURITY_SCHEMES, schemas: ERROR_SCHEMAS },
      // /docs shows the groups in this order: the interface's sections first.
      tags: SECTIONS.map((section) => ({ name: section.name, description: section.description })),
    },
    // Every operation's section, summary and description come from one table (operation-docs.ts);
    // its credentials and error replies from the checks the route runs (openapi-security.ts, openapi-errors.ts).
    transform: ({ schema, url, route }) => {
      const methods = typeof route.method === 'string' ? [route.method] : route.method;
      const doc = methods.map((method) => operationDoc(method, url)).find(Boolean);
      if (!schema) return { schema, url };
      const security = routeSecurity(route);
      const facts: ErrorFacts = {
        style: route.config?.style ?? styleOfPath(url),
        hasInput: Boolean(schema.querystring ?? schema.params ?? schema.body ?? schema.headers),
        hasPathId: Boolean(schema.params),
        authenticates: security.security.length > 0,
        rateLimited: isRateLimitedRoute(route),
        bodyLimit: route.bodyLimit ?? BODY_LIMIT_BYTES,
        codes: methods.flatMap((method) => operationAnswers(`${method} ${url.replace(/:(\w+)/g, '{$1}')}`, route.config?.centralOwned === true)),
      };
      const roles = staffRolesSentence(security);
      const words = doc ? { tags: [doc.section], summary: doc.summary, description: roles ? `${doc.description} ${roles}` : doc.description } : {};
      return { schema: { ...schema, ...security, [ERROR_FACTS]: facts, ...words }, url };
    },
    // The error replies go in after the route schemas are converted: they reference a component schema.
    transformObject: (document) => ('openapiObject' in document ? addErrorResponses(document.openapiObject) : document.swaggerObject),
  });
  serveSwaggerUiAtFirstVisit(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/** Carries an operation's error facts from transform to transformObject (swagger copies `x-` keys to the operation). */
const ERROR_FACTS = 'x-error-facts';

function addErrorResponses<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, Record<string, unknown>>> }).paths ?? {};
  for (const operation of Object.values(paths).flatMap((ops) => Object.values(ops))) {
    const facts = operation[ERROR_FACTS] as ErrorFacts | undefined;
    if (!facts) continue;
    delete operation[ERROR_FACTS];
    // A status the route's own schema answers keeps its schema (GET /health's 503 is a health report).
    const own = (operation.responses ?? {}) as Record<string, unknown>;
    const errors = Object.entries(errorResponses(facts)).filter(([status]) => !(status in own));
    operation.responses = { ...own, ...Object.fromEntries(errors) };
  }
  return document;
}

/** Hop-by-hop and length headers: the outer reply sets its own. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * /docs and its assets. Swagger UI's plugin takes ~0.1 s to load (its own copy of @fastify/static,
 * and yaml), a tenth of a node's cold start, for a page few nodes ever show: it is loaded at the first
 * visit, into a Fastify of its own that serves this node's document, and each /docs request is
 * handed to it as it came (method, path and headers: HEAD answers as before).
 */
function serveSwaggerUiAtFirstVisit(app: FastifyInstance): void {
  let docs: Promise<FastifyInstance> | undefined;
  const loadDocs = async () => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    const inner = Fastify({ logger: false });
    await inner.register(swagger, { mode: 'static', specification: { document: app.swagger() as never } });
    await inner.register(swaggerUi, { routePrefix: '/docs' });
    await inner.ready();
    return inner;
  };
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    docs ??= loadDocs().catch((error: unknown) => {
      docs = undefined; // the next visit tries again
      throw error;
    });
    const answer = await (await docs).inject({ method: request.method as 'GET', url: request.url, headers: request.headers });
    // The inner Fastify's own 404 has none of the node's envelope (and no code): answer as any unknown path.
    if (answer.statusCode === 404) return sendError(request, reply, new ServiceError('route_not_found', `There is no ${request.method} ${request.url.split('?')[0]} endpoint.`));
    reply.code(answer.statusCode);
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !NOT_FORWARDED.has(name)) reply.header(name, value);
    return reply.send(answer.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, forward);
  app.get('/docs/*', { schema: { hide: true } }, forward);
  app.addHook('onClose', async () => {
    await (await docs?.catch(() => undefined))?.close();
  });
}
