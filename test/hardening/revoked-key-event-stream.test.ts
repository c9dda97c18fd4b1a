import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { eventStreams } from '../support/event-stream';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Tenth round, an attacker's run: a store's event stream (GET /app/events?api_key) is checked when
// it opens and then stays open for days. A kiosk key revoked in the back office was refused by
// every call at once, but its open stream kept hearing every check-in and order of the store.
// Now a revoked key's stream ends within a few seconds (the node reads its open streams' keys
// every 2 s), whoever revoked it; a live key's stream carries on.

let node: TestNode;
let owner: SignedInStaff;
let vendor: Awaited<ReturnType<TestNode['addVendor']>>;
const streams = eventStreams(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Revoked Streams');
  owner = await ownerOf(node, vendor.vendorId);
});

afterEach(() => streams.closeAll());

afterAll(async () => {
  await node?.close();
});

async function issuedKiosk(): Promise<{ id: number; key: string }> {
  const issued = await staffCall(node, owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'kiosk', label: 'Lobby kiosk' });
  expect(issued.status, JSON.stringify(issued.body)).toBe(201);
  return { id: issued.body.key.id, key: issued.body.api_key };
}

/** Resolves true when the stream ends within `ms`, false when it is still open then. */
async function endsWithin(ended: Promise<void>, ms: number): Promise<boolean> {
  return Promise.race([ended.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

async function checkIn(): Promise<void> {
  const customer = await signUpAt(node, vendor.vendorId);
  const reply = await http(`${node.url}/onscreen?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'POST', body: { card_number: customer.email } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
}

describe('an open event stream of a revoked key', () => {
  it('ends once the back office revokes the key, and hears nothing of the store after that; a live key’s stream carries on', async () => {
    const kiosk = await issuedKiosk();
    const revokedStream = await streams.events(kiosk.key);
    const liveStream = await streams.events(vendor.apiKey);
    await checkIn();
    expect((await revokedStream.next()).event).toBe('session.opened');
    expect((await liveStream.next()).event).toBe('session.opened');

    expect((await staffCall(node, owner.token, 'DELETE', `/backoffice/keys/${kiosk.id}`)).status).toBe(200);
    expect(await endsWithin(revokedStream.ended, 5_000)).toBe(true);

    await checkIn();
    expect((await liveStream.next()).event).toBe('session.opened');
    expect(revokedStream.pending()).toEqual([]);
    // Opening it again is refused like any other call of the key.
    expect((await http(`${node.url}/app/events?api_key=${encodeURIComponent(kiosk.key)}`)).status).toBe(401);
  });

  it('ends too when the key is revoked outside this process (the CLI, another central process, a pulled change)', async () => {
    const kiosk = await issuedKiosk();
    const stream = await streams.events(kiosk.key);
    expect(await endsWithin(stream.ended, 2_500)).toBe(false);
    await node.engine.db.updateTable('api_keys').set({ revoked_at: node.clock.now() }).where('id', '=', kiosk.id).execute();
    expect(await endsWithin(stream.ended, 5_000)).toBe(true);
  });
});
