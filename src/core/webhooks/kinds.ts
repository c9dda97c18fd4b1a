// The events a program's integrations can subscribe to. Dotted names; the first two are the ones
// the original service documents. Payload shapes are in payloads.ts and docs/decisions.md; a
// change that is not additive gets a new WEBHOOK_API_VERSION.

export const WEBHOOK_API_VERSION = '2026-11-25';

export const WEBHOOK_KINDS = [
  'user_card.created',
  'balance.updated',
  'customer.registered',
  'customer.updated',
  'customer.deleted',
  'check_in.opened',
  'check_in.closed',
  'order.placed',
  'order.voided',
  'reload.succeeded',
  'reload.failed',
  'auto_reload.ran',
  'egift.sent',
  'egift.claimed',
  'tier.changed',
  'points.expired',
] as const;

export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** Sent only by POST /webhooks/:id/test; no endpoint subscribes to it. */
export const TEST_EVENT_KIND = 'webhook.test';

export function isWebhookKind(value: string): value is WebhookKind {
  return (WEBHOOK_KINDS as readonly string[]).includes(value);
}
