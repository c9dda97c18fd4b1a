import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rejectedVerdictsQuery } from '../../src/core/chain-health/chain-health';
import { pendingEventsQuery, pendingSummaryQuery, readPendingEvents, recordVerdicts, rejectedEventsPageQuery, rejectedEventsQuery, summariseOutbox } from '../../src/core/sync/outbox/pending-events';
import { nodeForPlans } from '../support/query-plan';

// A store's outbox keeps every event it pushed and central every verdict: the reads that want the
// few pending or rejected ones go through partial indexes (migration 0024). Walking the table,
// they cost 100 ms a push and 155 ms a GET /sync/status at 1M past events. Central's count of a
// node's rejected events is also tested in test/api/backoffice-chain.test.ts.

const node = nodeForPlans('punchcard-outbox-plans-');
const { planOf } = node;

describe('the outbox reads only its pending and rejected events', () => {
  it('the next page to push: the pending events in order, from their partial index', async () => {
    expect(await planOf(pendingEventsQuery(node.engine().db, 1000))).toBe('SCAN sync_events USING INDEX sync_events_pending');
  });

  it('the status (pending count and oldest, rejected count) and the list of rejected ones, each from a partial index', async () => {
    expect(await planOf(pendingSummaryQuery(node.engine().db))).toMatch(/^SCAN sync_events USING (COVERING )?INDEX sync_events_pending$/);
    expect(await planOf(rejectedEventsQuery(node.engine().db))).toBe('SCAN sync_events USING COVERING INDEX sync_events_rejected');
    // Settings' list of them (GET /sync/rejected), newest first.
    expect(await planOf(rejectedEventsPageQuery(node.engine().db, 50))).toBe('SCAN sync_events USING INDEX sync_events_rejected');
  });

  it('central: a node’s rejected events, from the partial index of rejected verdicts', async () => {
    expect(await planOf(rejectedVerdictsQuery(node.engine().db, 7))).toBe('SEARCH sync_verdicts USING COVERING INDEX sync_verdicts_rejected (node_id=?)');
  });
});

describe('what the outbox reads answer', () => {
  it('pending events oldest first, the oldest pending time, and the rejected count, whatever was acknowledged before', async () => {
    // Five events: two acknowledged long ago (one rejected), three pending.
    for (let seq = 1; seq <= 5; seq += 1) {
      await sql`insert into sync_events (node_seq, event_id, node_id, type, version, payload, offline, created_at) values (${seq}, ${`evt-${seq}`}, ${node.engine().nodeId}, 'order.placed', 1, '{}', 0, ${1_000 * seq})`.execute(node.engine().db);
    }
    await node.engine().db.transaction().execute((trx) =>
      recordVerdicts(trx, node.engine(), [
        { node_seq: 1, event_id: 'evt-1', verdict: 'applied', code: null, message: null },
        { node_seq: 2, event_id: 'evt-2', verdict: 'rejected', code: 'table_not_accepted', message: 'no' },
      ]),
    );
    expect(await summariseOutbox(node.engine().db)).toEqual({ pending: 3, oldestPendingAt: 3_000, rejected: 1 });
    expect((await readPendingEvents(node.engine(), 2)).map((e) => e.node_seq)).toEqual([3, 4]);
    await node.engine().db.transaction().execute((trx) => recordVerdicts(trx, node.engine(), [3, 4, 5].map((seq) => ({ node_seq: seq, event_id: `evt-${seq}`, verdict: 'applied' as const, code: null, message: null }))));
    expect(await summariseOutbox(node.engine().db)).toEqual({ pending: 0, oldestPendingAt: null, rejected: 1 });
    expect(await readPendingEvents(node.engine(), 2)).toEqual([]);
  });
});
