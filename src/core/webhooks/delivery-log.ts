import { sql } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import type { ListPage } from '../listing/list-plan';
import { planList, type ListRequest } from '../listing/list-plan';
import { newPublicId } from '../storage/ids';
import { WEBHOOK_API_VERSION, TEST_EVENT_KIND } from './kinds';
import { type EndpointStatus, findEndpoint } from './endpoints';
import { queueDelivery } from './record-event';

// The delivery log of an endpoint, replays, and the test event.

export interface DeliveryRecord {
  id: number;
  eventId: string;
  eventType: string;
  eventCreatedAt: number;
  /** 'pending' | 'sending' | 'succeeded' | 'failed' | 'cancelled' */
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: number | null;
  /** When the next attempt is due (pending deliveries only). */
  nextAttemptAt: number | null;
  createdAt: number;
  finishedAt: number | null;
}

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'] as const;

/** GET /webhooks/:id/deliveries: newest first, paged. Filter: `s:` status (any case), as the other lists' `s:`. */
export async function listDeliveries(engine: Engine, scope: VendorScope, endpointId: string, request: ListRequest): Promise<ListPage<DeliveryRecord>> {
  const endpoint = await findEndpoint(engine.db, scope, endpointId);
  const plan = planList(request, { filterKeys: ['s'], sortFields: ['date_created'], defaultSort: 'date_created' });
  const status = plan.filters.s?.toLowerCase();
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw new ServiceError('invalid_query', `The filter "s:" is one of ${DELIVERY_STATUSES.join(', ')}.`, 'query');
  }
  let query = engine.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'v.type', 'v.created_at as event_created_at', 'd.status', 'd.attempts', 'd.last_status_code', 'd.last_error', 'd.last_attempt_at', 'd.next_attempt_at', 'd.created_at', 'd.finished_at'])
    .where('d.endpoint_id', '=', endpoint.id)
    .where('d.vendor_id', '=', scope.vendorId);
  if (status !== undefined) query = query.where('d.status', '=', status);
  const rows = await query
    .orderBy('d.created_at', plan.direction)
    .orderBy('d.id', plan.direction)
    .limit(plan.limit + 1)
    .offset((plan.page - 1) * plan.limit)
    .execute();
  return {
    items: rows.slice(0, plan.limit).map((row) => ({
      id: row.id,
      eventId: row.event_id,
      eventType: row.type,
      eventCreatedAt: row.event_created_at,
      status: row.status,
      attempts: row.attempts,
      lastStatusCode: row.last_status_code,
      lastError: row.last_error,
      lastAttemptAt: row.last_attempt_at,
      nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
    })),
    page: plan.page,
    limit: plan.limit,
    hasMore: rows.length > plan.limit,
  };
}

/** Most events one replay of a time range queues. */
export const MAX_REPLAY_EVENTS = 10_000;

export interface ReplayInput {
  /** One event of the vendor, whatever its kind. */
  eventId?: string | undefined;
  /** Every event of the kinds the endpoint subscribes to that happened in [from, to) (epoch ms). */
  from?: number | undefined;
  to?: number | undefined;
}

/**
 * POST /webhooks/:id/replay: new deliveries (fresh attempts, due now) of one event or of every
 * subscribed event of a time range, in the order they happened. Events are kept as long as the
 * node keeps them; an event exists only if some endpoint wanted its kind when it happened.
 */
export async function replayEvents(engine: Engine, scope: VendorScope, endpointId: string, input: ReplayInput): Promise<{ queued: number; endpointStatus: EndpointStatus }> {
  const byId = input.eventId !== undefined;
  const byRange = input.from !== undefined || input.to !== undefined;
  if (byId === byRange) throw new ServiceError('validation_failed', 'Send either event_id, or from and to (a time range).', byId ? 'event_id' : 'from');
  if (byRange && (input.from === undefined || input.to === undefined)) throw new ServiceError('validation_failed', 'A time range needs both from and to.', input.from === undefined ? 'from' : 'to');
  if (byRange && input.to! <= input.from!) throw new ServiceError('invalid_date_range', 'to must be later than from.', 'to');
  return transact(engine, async (trx) => {
    const endpoint = await findEndpoint(trx, scope, endpointId);
    let query = trx.selectFrom('webhook_events').select('id').where('vendor_id', '=', scope.vendorId);
    if (byId) query = query.where('id', '=', input.eventId!);
    else {
      const kinds = JSON.parse(endpoint.events) as string[];
      query = query.where('type', 'in', kinds).where('created_at', '>=', input.from!).where('created_at', '<', input.to!);
    }
    // Same time: in the order they were written (their first delivery's id is a node sequence).
    const events = await query
      .orderBy('created_at')
      .orderBy(sql`(select min(d.id) from webhook_deliveries d where d.event_id = webhook_events.id)`)
      .limit(MAX_REPLAY_EVENTS + 1)
      .execute();
    if (byId && events.length === 0) throw new ServiceError('webhook_event_not_found', undefined, 'event_id');
    if (events.length > MAX_REPLAY_EVENTS) {
      throw new ServiceError('validation_failed', `The range holds more than ${MAX_REPLAY_EVENTS} events: replay it in shorter ranges.`, 'from');
    }
    for (const event of events) await queueDelivery(trx, engine, { vendorId: scope.vendorId, endpointId: endpoint.id, eventId: event.id });
    // A paused or disabled endpoint holds them until enabled: the reply says so (else it reads as sent).
    return { queued: events.length, endpointStatus: endpoint.status as EndpointStatus };
  });
}

/** POST /webhooks/:id/test: a `webhook.test` event for this endpoint alone, delivered like any other. */
export async function sendTestEvent(engine: Engine, scope: VendorScope, endpointId: string): Promise<{ eventId: string; endpointStatus: EndpointStatus }> {
  return transact(engine, async (trx) => {
    const endpoint = await findEndpoint(trx, scope, endpointId);
    const now = engine.clock.now();
    const eventId = newPublicId('evt');
    await trx
      .insertInto('webhook_events')
      .values({
        id: eventId,
        vendor_id: scope.vendorId,
        type: TEST_EVENT_KIND,
        api_version: WEBHOOK_API_VERSION,
        data: JSON.stringify({ endpoint_id: endpoint.id, message: 'A test event sent from the webhooks API.' }),
        created_at: now,
        recorded_at: now,
      })
      .execute();
    await queueDelivery(trx, engine, { vendorId: scope.vendorId, endpointId: endpoint.id, eventId });
    return { eventId, endpointStatus: endpoint.status as EndpointStatus };
  });
}
