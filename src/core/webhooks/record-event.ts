import type { Insertable, Kysely } from 'kysely';
import { type Engine, ownsProgramData } from '../engine';
import { newPublicId, nextObjectId, nextObjectIds } from '../storage/ids';
import { prepared } from '../storage/prepared';
import type { DB, WebhookEventsTable } from '../storage/schema';
import { WEBHOOK_API_VERSION, type WebhookKind } from './kinds';

export interface NewWebhookEvent {
  vendorId: number;
  type: WebhookKind;
  /** The event's `data`; only built when an endpoint of the vendor subscribes to the kind. */
  data: () => Promise<object> | object;
  /** When it happened, epoch ms (an offline store's original time); now when absent. */
  occurredAt?: number;
}

/** Endpoints that receive new events: enabled ones, and paused ones (held until resumed). */
export const RECEIVING_STATUSES = ['enabled', 'paused'];

const receivingEndpoints = prepared((db, vendorId: number) =>
  db.selectFrom('webhook_endpoints').select(['id', 'events']).where('vendor_id', '=', vendorId).where('status', 'in', RECEIVING_STATUSES).where('deleted_at', 'is', null),
);

/** Every kind some receiving endpoint of the vendor subscribes to (one read for a batch of changes). */
export async function subscribedKinds(db: Kysely<DB>, vendorId: number): Promise<Set<string>> {
  const endpoints = await receivingEndpoints(db, vendorId);
  return new Set(endpoints.flatMap((endpoint) => JSON.parse(endpoint.events) as string[]));
}

/**
 * Writes an event to the webhook outbox in the caller's transaction, with one pending delivery
 * per endpoint of the vendor subscribed to its kind: if the change commits, the event will be
 * delivered (by the worker, with retries); if it rolls back, there is no event. Returns the
 * event id, or null when nothing was written: no endpoint wants the kind (the data is not even
 * built, so hot paths pay one indexed read), or this node is a replica (the node that owns the
 * program's data writes the event when the change reaches it).
 */
export async function recordWebhookEvent(db: Kysely<DB>, engine: Engine, event: NewWebhookEvent): Promise<string | null> {
  if (!ownsProgramData(engine)) return null;
  const endpoints = await receivingEndpoints(db, event.vendorId);
  const subscribed = endpoints.filter((endpoint) => (JSON.parse(endpoint.events) as string[]).includes(event.type));
  if (subscribed.length === 0) return null;

  const now = engine.clock.now();
  const id = newPublicId('evt');
  await db
    .insertInto('webhook_events')
    .values({
      id,
      vendor_id: event.vendorId,
      type: event.type,
      api_version: WEBHOOK_API_VERSION,
      data: JSON.stringify(await event.data()),
      created_at: event.occurredAt ?? now,
      recorded_at: now,
    })
    .execute();
  for (const endpoint of subscribed) await queueDelivery(db, engine, { vendorId: event.vendorId, endpointId: endpoint.id, eventId: id });
  return id;
}

/**
 * Many events as recordWebhookEvent writes each (a batch of imported members): the endpoints read
 * once, the data of a kind no endpoint wants never built, then one insert of the events and one of
 * their deliveries. Returns how many events were written.
 */
export async function recordWebhookEvents(db: Kysely<DB>, engine: Engine, vendorId: number, events: readonly NewWebhookEvent[]): Promise<number> {
  if (!ownsProgramData(engine) || events.length === 0) return 0;
  const endpoints = (await receivingEndpoints(db, vendorId)).map((endpoint) => ({ id: endpoint.id, kinds: JSON.parse(endpoint.events) as string[] }));
  const now = engine.clock.now();
  const rows: Array<Insertable<WebhookEventsTable>> = [];
  const receivers: string[][] = [];
  for (const event of events) {
    if (event.vendorId !== vendorId) throw new Error('recordWebhookEvents takes the events of one vendor');
    const subscribed = endpoints.filter((endpoint) => endpoint.kinds.includes(event.type)).map((endpoint) => endpoint.id);
    if (subscribed.length === 0) continue;
    rows.push({ id: newPublicId('evt'), vendor_id: vendorId, type: event.type, api_version: WEBHOOK_API_VERSION, data: JSON.stringify(await event.data()), created_at: event.occurredAt ?? now, recorded_at: now });
    receivers.push(subscribed);
  }
  if (rows.length === 0) return 0;
  await db.insertInto('webhook_events').values(rows).execute();
  const ids = await nextObjectIds(db, engine.nodeId, receivers.reduce((sum, r) => sum + r.length, 0));
  let next = 0;
  const deliveries = rows.flatMap((event, i) => receivers[i]!.map((endpointId) => deliveryRow(ids[next++]!, { vendorId, endpointId, eventId: event.id }, now)));
  await db.insertInto('webhook_deliveries').values(deliveries).execute();
  return rows.length;
}

/** A pending delivery of a stored event to one endpoint, due now. */
export async function queueDelivery(db: Kysely<DB>, engine: Engine, delivery: { vendorId: number; endpointId: string; eventId: string }): Promise<number> {
  const id = await nextObjectId(db, engine.nodeId);
  await db.insertInto('webhook_deliveries').values(deliveryRow(id, delivery, engine.clock.now())).execute();
  return id;
}

function deliveryRow(id: number, delivery: { vendorId: number; endpointId: string; eventId: string }, now: number) {
  return {
    id,
    vendor_id: delivery.vendorId,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    finished_at: null,
    retry_from: null,
  };
}
