import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStaleSessions, STALE_SESSION_HOURS } from '../../src/core/onscreen/close-stale-sessions';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { eventStreams } from '../support/event-stream';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Check-ins nobody served or closed (a walk-away at the kiosk) stayed in every counter's queue for
// good. The hourly job closes those open STALE_SESSION_HOURS with reason `expired`; the counters
// hear of it; fresher check-ins stay.

let node: TestNode;
const { events, closeAll } = eventStreams(() => node);
const store = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});
afterAll(async () => {
  closeAll();
  await node?.close();
});

describe('check-ins left open', () => {
  it('close after 12 hours (reason expired), the queue empties of them and the counters hear it; a fresh one stays', async () => {
    const v = await node.addVendor('Walk-aways');
    const left = await signUpAt(node, v.vendorId, { first_name: 'Left' });
    const fresh = await signUpAt(node, v.vendorId, { first_name: 'Fresh' });
    const old = await store.checkInSessionOk(v.kioskApiKey, left.email);
    node.clock.advance(STALE_SESSION_HOURS * 3_600_000 - 60_000);
    const recent = await store.checkInSessionOk(v.kioskApiKey, fresh.email);
    node.clock.advance(120_000);
    const stream = await events(v.apiKey);

    expect(await closeStaleSessions(node.engine)).toBe(1);
    const closed = await stream.next(5_000);
    expect(closed.data).toMatchObject({ type: 'session.closed', pos_session_id: old.id });
    const queue = await store.queueOk(v.apiKey);
    expect(queue.map((entry: { pos_session: { id: number } }) => Number(entry.pos_session.id))).toEqual([recent.id]);
    const row = await node.engine.db.selectFrom('pos_sessions').select(['status', 'closed_reason']).where('id', '=', old.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'closed', closed_reason: 'expired' });
    // Nothing more to close; the customer checks in again as new.
    expect(await closeStaleSessions(node.engine)).toBe(0);
    expect((await http(`${node.url}/onscreen?api_key=${encodeURIComponent(v.kioskApiKey)}`, { method: 'POST', body: { card_number: left.email } })).status).toBe(201);
  });
});
