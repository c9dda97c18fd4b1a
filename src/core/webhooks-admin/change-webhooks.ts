import { ServiceError } from '../../shared/errors';
import { auditedChange } from '../audit/audited-change';
import type { AuditEntry } from '../audit/record-audit';
import { type Engine, ownsProgramData } from '../engine';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { type DeliveryRecord, listDeliveries, replayEvents, sendTestEvent } from '../webhooks/delivery-log';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  type EndpointInput,
  type EndpointPolicy,
  type EndpointRecord,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from '../webhooks/endpoints';
import type { ListPage } from '../listing/list-plan';

// A program's webhook endpoints as the back office manages them: the bearer API's own use cases
// (same checks, same messages), each change with its audit record in the same transaction. The
// audit holds endpoint records, never a secret. The node that delivers the program's events owns
// its endpoints: a paired store leaves them to central.

function deliveredHere(engine: Engine): void {
  if (!ownsProgramData(engine)) throw new ServiceError('webhooks_managed_by_central');
}

async function change<T>(engine: Engine, staff: StaffPrincipal, work: (within: Engine) => Promise<{ result: T; audit: AuditEntry }>): Promise<T> {
  deliveredHere(engine);
  return auditedChange(engine, actorOf(staff), work);
}

const scopeOf = (staff: StaffPrincipal) => ({ vendorId: staff.vendorId });

export const webhookAdmin = {
  list: (engine: Engine, staff: StaffPrincipal): Promise<EndpointRecord[]> => {
    deliveredHere(engine);
    return listWebhookEndpoints(engine, scopeOf(staff));
  },
  deliveries: (engine: Engine, staff: StaffPrincipal, id: string, page: { limit?: number | undefined; page?: number | undefined }): Promise<ListPage<DeliveryRecord>> => {
    deliveredHere(engine);
    return listDeliveries(engine, scopeOf(staff), id, page);
  },
  /** A new endpoint and its secret (shown once; the audit records the endpoint without it). */
  create: (engine: Engine, staff: StaffPrincipal, input: EndpointInput, policy: EndpointPolicy) =>
    change(engine, staff, async (e) => {
      const made = await createWebhookEndpoint(e, scopeOf(staff), input, policy);
      return { result: made, audit: { action: 'webhook.create', objectType: 'webhook', objectId: made.endpoint.id, before: null, after: made.endpoint } };
    }),
  update: (engine: Engine, staff: StaffPrincipal, id: string, input: EndpointInput, policy: EndpointPolicy) =>
    change(engine, staff, async (e) => {
      const before = await getWebhookEndpoint(e, scopeOf(staff), id);
      const after = await updateWebhookEndpoint(e, scopeOf(staff), id, input, policy);
      return { result: after, audit: { action: 'webhook.update', objectType: 'webhook', objectId: id, before, after } };
    }),
  /**
   * The endpoint stops receiving for good and what it had not received is cancelled (the bearer
   * API's DELETE). The audit keeps the endpoint as it was (`before`; `after` is null).
   */
  delete: (engine: Engine, staff: StaffPrincipal, id: string) =>
    change(engine, staff, async (e) => {
      const before = await getWebhookEndpoint(e, scopeOf(staff), id);
      await deleteWebhookEndpoint(e, scopeOf(staff), id);
      return { result: undefined, audit: { action: 'webhook.delete', objectType: 'webhook', objectId: id, before, after: null } };
    }),
  rotateSecret: (engine: Engine, staff: StaffPrincipal, id: string) =>
    change(engine, staff, async (e) => {
      const before = await getWebhookEndpoint(e, scopeOf(staff), id);
      const rotated = await rotateWebhookSecret(e, scopeOf(staff), id);
      return { result: rotated, audit: { action: 'webhook.rotate_secret', objectType: 'webhook', objectId: id, before, after: rotated.endpoint } };
    }),
  sendTest: (engine: Engine, staff: StaffPrincipal, id: string) =>
    change(engine, staff, async (e) => {
      const sent = await sendTestEvent(e, scopeOf(staff), id);
      return { result: sent, audit: { action: 'webhook.test', objectType: 'webhook', objectId: id, before: null, after: { event_id: sent.eventId } } };
    }),
  /** One event sent again to this endpoint (a fresh delivery, due now). */
  replay: (engine: Engine, staff: StaffPrincipal, id: string, eventId: string) =>
    change(engine, staff, async (e) => {
      const replayed = await replayEvents(e, scopeOf(staff), id, { eventId });
      return { result: replayed, audit: { action: 'webhook.replay', objectType: 'webhook', objectId: id, before: null, after: { event_id: eventId, queued: replayed.queued } } };
    }),
};
