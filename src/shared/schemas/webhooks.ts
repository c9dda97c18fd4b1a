import { type Static, Type } from 'typebox';
import { WEBHOOK_KINDS } from '../webhook-kinds';
import { IsoTimestamp, ListQuerySchema, Nullable } from './common';

// Wire shapes of /webhooks (resource style, the vendor's bearer). Event kinds: src/shared/webhook-kinds.ts.

export const WebhookEndpointSchema = Type.Object({
  id: Type.String({ description: 'wh_…' }),
  url: Type.String(),
  events: Type.Array(Type.String(), { description: 'event kinds the endpoint receives' }),
  description: Nullable(Type.String()),
  alert_email: Nullable(Type.String({ description: 'emailed when the endpoint is disabled' })),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('paused'), Type.Literal('disabled')]),
  disabled_reason: Nullable(Type.String({ description: "'failing' (3 days of failures) or 'gone' (the receiver answered 410)" })),
  previous_secret_expires_at: Nullable(IsoTimestamp),
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
});
export type WebhookEndpointWire = Static<typeof WebhookEndpointSchema>;

/** Said with a test event or a replay: a paused or disabled endpoint holds it until it is enabled. */
const QueuedForStatus = Type.Union([Type.Literal('enabled'), Type.Literal('paused'), Type.Literal('disabled')], {
  description: "the endpoint's status: `paused` or `disabled` hold what was queued until the endpoint is enabled again (nothing is sent before)",
});

/** 202 of POST /webhooks/:id/test. */
export const TestEventQueuedSchema = Type.Object({ event_id: Type.String({ description: 'evt_…' }), endpoint_status: QueuedForStatus });
/** 202 of POST /webhooks/:id/replay. */
export const ReplayQueuedSchema = Type.Object({ queued: Type.Integer(), endpoint_status: QueuedForStatus });

export const WebhookEndpointWithSecretSchema = Type.Intersect([
  WebhookEndpointSchema,
  Type.Object({ secret: Type.String({ description: 'whsec_…: signs deliveries; shown only on creation and rotation' }) }),
]);

// The kinds are named here, not as an enum, so an unknown one gets the engine's message (which names it).
const SUBSCRIBED_KINDS = { minItems: 1, maxItems: 50, description: `event kinds the endpoint receives: ${WEBHOOK_KINDS.join(', ')}` };

export const CreateWebhookBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  events: Type.Array(Type.String({ maxLength: 64 }), SUBSCRIBED_KINDS),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  alert_email: Type.Optional(Nullable(Type.String({ maxLength: 254 }))),
});

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), SUBSCRIBED_KINDS)),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  alert_email: Type.Optional(Nullable(Type.String({ maxLength: 254 }))),
  status: Type.Optional(Type.String({ description: '"enabled" or "paused"' })),
});

export const WebhookDeliverySchema = Type.Object({
  id: Type.Integer(),
  event_id: Type.String({ description: 'evt_…' }),
  event_type: Type.String(),
  event_created: IsoTimestamp,
  status: Type.String({ description: 'pending, sending, succeeded, failed or cancelled' }),
  attempts: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  last_attempt_at: Nullable(IsoTimestamp),
  next_attempt_at: Nullable(IsoTimestamp),
  date_created: IsoTimestamp,
  date_finished: Nullable(IsoTimestamp),
});

/** GET /webhooks/:id/deliveries: the list parameters it takes (one filter, one sort field). */
export const DeliveryListQuery = Type.Object({
  limit: ListQuerySchema.properties.limit,
  page: ListQuerySchema.properties.page,
  query: Type.Optional(Type.String({ maxLength: 500, description: 's:<status>: pending, sending, succeeded, failed or cancelled (any case)' })),
  sort: Type.Optional(Type.String({ description: 'date_created (the only one, the default)' })),
  order: ListQuerySchema.properties.order,
});

export const ReplayWebhookBody = Type.Object({
  event_id: Type.Optional(Type.String({ maxLength: 64 })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'start of the range (inclusive), ISO 8601' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'end of the range (exclusive), ISO 8601' })),
});

// ---- the back office (/backoffice/webhooks, staff sessions)

export const BackOfficeWebhooksSchema = Type.Object({
  items: Type.Array(WebhookEndpointSchema),
  kinds: Type.Array(Type.String(), { description: 'every event kind an endpoint may subscribe to' }),
});

export const BackOfficeDeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1-100, default 20' })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'page number, the first page is 1' })),
});

export const BackOfficeDeliveriesSchema = Type.Object({
  items: Type.Array(WebhookDeliverySchema),
  page: Type.Integer(),
  has_more: Type.Boolean(),
});

export const BackOfficeReplayBody = Type.Object({ event_id: Type.String({ minLength: 1, maxLength: 64, description: 'evt_… of the delivery to send again' }) });
