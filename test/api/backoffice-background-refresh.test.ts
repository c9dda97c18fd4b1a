import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKGROUND_REQUEST_HEADER, BACKGROUND_REQUEST_VALUE } from '../../src/shared/background-request';
import { ownerOf, type SignedInStaff } from '../support/backoffice';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A screen's refresh on a timer (the delivery log polls every 2 s while a delivery is pending) is
// served but is not the staff member's activity: over real HTTP, a session asked only by
// background requests ends 30 minutes after its last real call, and a real call moves that end.

let node: TestNode;
let owner: SignedInStaff;
let endpointId: string;

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  const { vendorId } = await node.addVendor();
  owner = await ownerOf(node, vendorId);
  // An endpoint nobody listens at: its test event stays pending, as on the screen that polls.
  const made = await http(`${node.url}/backoffice/webhooks`, { method: 'POST', token: owner.token, body: { url: 'http://127.0.0.1:9/hook', events: ['order.placed'] } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  endpointId = made.body.id;
  expect((await http(`${node.url}/backoffice/webhooks/${endpointId}/test`, { method: 'POST', token: owner.token })).status).toBe(202);
});

afterAll(async () => {
  await node?.close();
});

const MINUTE = 60_000;
const deliveries = (token: string, background: boolean) =>
  http(`${node.url}/backoffice/webhooks/${endpointId}/deliveries`, { token, ...(background ? { headers: { [BACKGROUND_REQUEST_HEADER]: BACKGROUND_REQUEST_VALUE } } : {}) });

describe('background refreshes and the idle end of a staff session', () => {
  it('a background refresh is answered but does not move the idle end; the session ends 30 minutes after the last real call', async () => {
    const session = owner.token;
    expect((await deliveries(session, false)).status).toBe(200);
    // 31 minutes of a screen polling every few minutes, nobody at it.
    for (let minute = 4; minute <= 28; minute += 4) {
      node.clock.advance(4 * MINUTE);
      const polled = await deliveries(session, true);
      expect(polled.status, JSON.stringify(polled.body)).toBe(200);
      expect(polled.body.items).toHaveLength(1);
    }
    node.clock.advance(3 * MINUTE);
    const ended = await deliveries(session, true);
    expect([ended.status, ended.body.code]).toEqual([401, 'session_expired']);
    // A real call after that does not revive it either.
    const after = await deliveries(session, false);
    expect([after.status, after.body.code]).toEqual([401, 'session_expired']);
  });

  it('a real call moves the idle end, as before', async () => {
    const session = await ownerOf(node, (await node.addVendor()).vendorId).then((s) => s.token);
    node.clock.advance(20 * MINUTE);
    expect((await http(`${node.url}/backoffice/me`, { token: session })).status).toBe(200);
    node.clock.advance(20 * MINUTE);
    // 40 minutes after sign-in, 20 after the real call: alive, and a background call still works.
    expect((await http(`${node.url}/backoffice/me`, { token: session, headers: { [BACKGROUND_REQUEST_HEADER]: BACKGROUND_REQUEST_VALUE } })).status).toBe(200);
    node.clock.advance(11 * MINUTE);
    const idle = await http(`${node.url}/backoffice/me`, { token: session });
    expect([idle.status, idle.body.code]).toEqual([401, 'session_expired']);
  });

  it('another value of the header is an ordinary call', async () => {
    const session = await ownerOf(node, (await node.addVendor()).vendorId).then((s) => s.token);
    node.clock.advance(20 * MINUTE);
    expect((await http(`${node.url}/backoffice/me`, { token: session, headers: { [BACKGROUND_REQUEST_HEADER]: 'user' } })).status).toBe(200);
    node.clock.advance(20 * MINUTE);
    expect((await http(`${node.url}/backoffice/me`, { token: session })).status).toBe(200);
  });
});
