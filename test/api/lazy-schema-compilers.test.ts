import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { DeferredSchemas, deferredCompilersFactory } from '../../src/server/http/lazy-schema-compilers';

// Route schemas compiled at first use (issue 13, item 4): Fastify's own compilers with each route's
// compilation deferred behave exactly as compiled at start — coercion, defaults, removed extras,
// errors, serialization — and the warm-up compiles whatever no request has used yet.

const schema = {
  querystring: Type.Object({ n: Type.Integer({ minimum: 1 }), tag: Type.Optional(Type.String({ default: 'none' })) }),
  body: Type.Object({ list: Type.Array(Type.Integer()) }),
  response: { 200: Type.Object({ n: Type.Integer(), tag: Type.String(), sum: Type.Integer() }) },
};

async function appWith(deferred: DeferredSchemas | null): Promise<FastifyInstance> {
  const app = Fastify({
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: true, useDefaults: true, allErrors: false } },
    ...(deferred ? { schemaController: { compilersFactory: deferredCompilersFactory(deferred) } } : {}),
  });
  app.post('/sum', { schema }, async (request) => {
    const { n, tag } = request.query as { n: number; tag: string };
    const { list } = request.body as { list: number[] };
    // `secret` is not in the response schema: the serializer drops it.
    return { n, tag, sum: list.reduce((a, b) => a + b, 0), secret: 'x' };
  });
  app.get('/other', { schema: { querystring: Type.Object({ q: Type.String() }) } }, async () => ({ ok: true }));
  await app.ready();
  return app;
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

describe('deferred route schemas', () => {
  it('answer every request exactly as schemas compiled at start', async () => {
    const deferred = new DeferredSchemas();
    const lazy = await appWith(deferred);
    const eager = await appWith(null);
    apps.push(lazy, eager);
    const requests = [
      { url: '/sum?n=3', payload: { list: ['1', 2], extra: true } },
      { url: '/sum?n=3&tag=a', payload: { list: 5 } },
      { url: '/sum?n=0', payload: { list: [1] } },
      { url: '/sum?n=x', payload: { list: [1] } },
      { url: '/sum?n=2', payload: { list: ['a'] } },
      { url: '/sum?n=2', payload: {} },
    ];
    const replies = [];
    for (const request of requests) {
      const [a, b] = await Promise.all([lazy, eager].map((app) => app.inject({ method: 'POST', ...request })));
      expect({ status: a!.statusCode, body: a!.body }, request.url).toEqual({ status: b!.statusCode, body: b!.body });
      replies.push(a!.statusCode);
    }
    // Coercion, defaults and serialization worked; bad input was refused.
    expect(replies).toEqual([200, 200, 400, 400, 400, 400]);
    expect(JSON.parse((await lazy.inject({ method: 'POST', url: '/sum?n=3', payload: { list: ['1', 2] } })).body)).toEqual({ n: 3, tag: 'none', sum: 3 });
  });

  it('compiles nothing before a route is used, and the warm-up compiles the rest', async () => {
    const deferred = new DeferredSchemas();
    const app = await appWith(deferred);
    apps.push(app);
    // /sum: querystring, body, response 200; GET /other and its HEAD route: querystring each.
    expect(deferred.pending).toBe(5);
    expect(deferred.compiled).toBe(0);
    expect((await app.inject({ url: '/other?q=1' })).statusCode).toBe(200);
    expect(deferred.compiled).toBe(1);
    await deferred.warmUp(1);
    expect(deferred.pending).toBe(0);
    expect(deferred.compiled).toBe(5);
    expect((await app.inject({ method: 'POST', url: '/sum?n=1', payload: { list: [4] } })).json()).toEqual({ n: 1, tag: 'none', sum: 4 });
  });
});
