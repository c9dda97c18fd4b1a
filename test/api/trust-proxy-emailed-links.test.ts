import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openParams } from '../../src/core/messaging/sealed-params';
import { addOwner } from '../../src/core/staff/add-owner';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import type { TrustProxy } from '../../src/server/http/trust-proxy';
import { ManualClock } from '../support/clock';
import { makeTempDir } from '../support/temp-dir';

// REVIEW (ba14523): with --trust-proxy, Fastify's request.protocol is the last X-Forwarded-Proto entry
// of a request from a trusted peer — any text. backOfficeLinkBase (src/server/auth/staff.ts:43) builds
// emailed back-office links (staff password reset, invitations) from reachedOrigin(request)
// (src/server/http/request-origin.ts:35), i.e. `${request.protocol}://<node address>/admin`. A proxy
// that passes the client's own X-Forwarded-Proto on (nginx does unless told to overwrite it), or any
// direct caller with a hop count, makes the node email an OWNER a reset link to a host of the
// caller's choosing, the token in the fragment that page's script reads: the staff account is taken.
// (The node's docs: emailed links are "the address the request reached — never the request's Host header".)

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function node(trustProxy: TrustProxy): Promise<{ url: string; engine: Engine; app: FastifyInstance }> {
  const dir = makeTempDir();
  const engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), clock: new ManualClock(), role: 'store' });
  const app = await buildApp({ engine, role: 'store', version: 'test', trustProxy });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  open.push(async () => {
    await app.close();
    await engine.close();
    dir.remove();
  });
  return { url, engine, app };
}

describe.each<[string, TrustProxy]>([
  ['a named proxy (127.0.0.1) that passes X-Forwarded-Proto on', { addresses: ['127.0.0.1'] }],
  ['a hop count', { hops: 1 }],
])('--trust-proxy, %s', (_name, trustProxy) => {
  it('an emailed staff reset link points at the node, whatever X-Forwarded-Proto says', async () => {
    const { url, engine } = await node(trustProxy);
    const vendor = await setUpVendor(engine, { name: 'Proxy Café', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    const email = 'owner@proxy.test';
    await addOwner(engine, { vendorId: vendor.vendorId, email, password: 'correct horse battery' });

    const reply = await fetch(`${url}/backoffice/password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https://evil.example/steal?x=' },
      body: JSON.stringify({ email }),
    });
    expect(reply.status).toBe(202);
    const row = await engine.db.selectFrom('messages_outbox').select('params').where('template', '=', 'staff_password_reset').executeTakeFirstOrThrow();
    const { link } = openParams(engine, row.params) as { link: string };
    expect(link).toContain('#/reset?token=pcsr_');
    expect(link, link).not.toContain('evil.example');
    expect(link.startsWith('http://127.0.0.1:') || link.startsWith('https://127.0.0.1:'), link).toBe(true);
  });
});
