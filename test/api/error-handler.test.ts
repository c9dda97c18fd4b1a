import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/server/errors/error-handler';

// What leaves the error handler for failures no use case turned into a ServiceError.
describe('the error handler', () => {
  const app = Fastify({ logger: false });
  beforeAll(async () => {
    registerErrorHandling(app);
    app.get('/v2/deadlock', async () => {
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    app.get('/v2/disk-full', async () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    });
    app.get('/v2/bug', async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers a database failure of the moment with 503, to be tried again, without its message', async () => {
    // A full disk has a code of its own (test/hardening/database-unavailable, disk-full).
    for (const [path, reason] of [['/v2/deadlock', 'service_unavailable'], ['/v2/disk-full', 'storage_unavailable']] as const) {
      const reply = await app.inject({ method: 'GET', url: path });
      expect(reply.statusCode).toBe(503);
      expect(reply.json().error.errors[0]).toMatchObject({ reason });
      expect(reply.body).not.toMatch(/deadlock|disk/);
    }
  });

  it('answers anything else unexpected with a bare 500, never the stack', async () => {
    const reply = await app.inject({ method: 'GET', url: '/v2/bug' });
    expect(reply.statusCode).toBe(500);
    expect(reply.json().error.errors[0]).toMatchObject({ reason: 'internal_error' });
    expect(reply.body).not.toMatch(/Cannot read|TypeError|at /);
  });
});
