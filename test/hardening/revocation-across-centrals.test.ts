import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openPostgres } from '../../src/core/storage/database';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ManualClock } from '../support/clock';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { openEventStream } from '../support/event-stream';
import { createServerDatabase } from '../support/postgres';
import { http, type TestNode } from '../support/test-node';

// Tenth round, an attacker's run: two central processes behind one load balancer share one
// PostgreSQL database, and each keeps the keys and tokens it has seen in memory. What one process
// revokes must be refused by the other at once: a key (also its open event stream, which the other
// process had authenticated when it opened), a bearer token, a disabled staff member's session.

const serverUrl = process.env.PG_URL;

interface Central {
  url: string;
  engine: Engine;
  app: FastifyInstance;
}

let scratch: { url: string; drop(): Promise<void> };
let one: Central;
let two: Central;
let vendor: VendorCredentials;
let owner: SignedInStaff;

async function startCentral(url: string, clock: ManualClock, nodeKey: Buffer): Promise<Central> {
  const engine = await startEngine({ database: openPostgres(url, 4), nodeKey, clock, role: 'central' });
  const app = await buildApp({ engine, role: 'central', version: 'test', rateLimits: ROOMY_RATE_LIMITS });
  return { url: await app.listen({ port: 0, host: '127.0.0.1' }), engine, app };
}

/** The back-office helpers take a node; a central process is one as far as they go. */
const asNode = (central: Central) => ({ url: central.url, engine: central.engine }) as unknown as TestNode;

describe.skipIf(!serverUrl)('revocation seen by every central process on one PostgreSQL', () => {
  beforeAll(async () => {
    scratch = await createServerDatabase(serverUrl!, 'punchcard_revocation');
    const clock = new ManualClock();
    const nodeKey = randomBytes(32);
    one = await startCentral(scratch.url, clock, nodeKey);
    two = await startCentral(scratch.url, clock, nodeKey);
    vendor = await setUpVendor(one.engine, { name: 'Two Centrals', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } });
    owner = await ownerOf(asNode(one), vendor.vendorId);
  }, 60_000);

  afterAll(async () => {
    for (const central of [one, two]) {
      await central?.app.close();
      await central?.engine.close();
    }
    await scratch?.drop();
  });

  it('a key revoked at one process is refused by the other on its next call, and its stream there ends', async () => {
    const issued = await staffCall(asNode(one), owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'kiosk', label: 'Lobby kiosk' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const key = encodeURIComponent(issued.body.api_key);
    // The second process has the key in memory and a stream open with it.
    expect((await http(`${two.url}/app/terminal?api_key=${key}`)).status).toBe(200);
    const stream = await openEventStream(`${two.url}/app/events?api_key=${key}`);
    try {
      expect(stream.response.status).toBe(200);
      expect((await staffCall(asNode(one), owner.token, 'DELETE', `/backoffice/keys/${issued.body.key.id}`)).status).toBe(200);
      expect((await http(`${two.url}/app/terminal?api_key=${key}`)).status).toBe(401);
      const ended = await Promise.race([stream.ended.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000))]);
      expect(ended).toBe(true);
    } finally {
      stream.close();
    }
  });

  it('a bearer token revoked at one process is refused by the other', async () => {
    expect((await http(`${two.url}/stores`, { token: vendor.accessToken })).status).toBe(200);
    await one.engine.db.updateTable('access_tokens').set({ revoked_at: Date.now() }).where('vendor_id', '=', vendor.vendorId).execute();
    expect((await http(`${two.url}/stores`, { token: vendor.accessToken })).status).toBe(401);
  });

  it("a staff member disabled at one process is signed out at the other", async () => {
    const manager = await invitedStaff(asNode(one), owner, 'manager');
    expect((await staffCall(asNode(two), manager.token, 'GET', '/backoffice/me')).status).toBe(200);
    expect((await staffCall(asNode(one), owner.token, 'PUT', `/backoffice/staff/${manager.id}`, { status: 'disabled' })).status).toBe(200);
    const after = await staffCall(asNode(two), manager.token, 'GET', '/backoffice/me');
    expect([after.status, after.body.code]).toEqual([401, 'session_ended']);
  });
});
