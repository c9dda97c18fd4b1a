import type { DeliveryRecord } from '../../core/webhooks/delivery-log';
import type { EndpointRecord } from '../../core/webhooks/endpoints';
import type { WebhookEndpointWire } from '../../shared/schemas/webhooks';
import { toIso } from '../../shared/time';

// Wire shapes of webhook endpoints and deliveries, shared by /webhooks (bearer) and /backoffice/webhooks (staff).

export function endpointToWire(endpoint: EndpointRecord): WebhookEndpointWire {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    alert_email: endpoint.alertEmail,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt === null ? null : toIso(endpoint.previousSecretExpiresAt),
    date_created: toIso(endpoint.createdAt),
    date_updated: toIso(endpoint.updatedAt),
  };
}

export function deliveryToWire(delivery: DeliveryRecord) {
  const iso = (ms: number | null) => (ms === null ? null : toIso(ms));
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    event_created: toIso(delivery.eventCreatedAt),
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    last_attempt_at: iso(delivery.lastAttemptAt),
    next_attempt_at: iso(delivery.nextAttemptAt),
    date_created: toIso(delivery.createdAt),
    date_finished: iso(delivery.finishedAt),
  };
}
