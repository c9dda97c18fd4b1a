import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../../shared/errors';
import { operationDoc, SECTIONS } from './operation-docs';

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
          'Bodies may be JSON or form fields on every method. Errors carry a stable machine code:\n\n| status | code | message |\n|---|---|---|\n' +
          errorTable,
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      // /docs shows the groups in this order: the interface's sections first.
      tags: SECTIONS.map((section) => ({ name: section.name, description: section.description })),
    },
    // Every operation's section, summary and description come from one table (operation-docs.ts).
    transform: ({ schema, url, route }) => {
      const methods = typeof route.method === 'string' ? [route.method] : route.method;
      const doc = methods.map((method) => operationDoc(method, url)).find(Boolean);
      if (!schema || !doc) return { schema, url };
      return { schema: { ...schema, tags: [doc.section], summary: doc.summary, description: doc.description }, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
