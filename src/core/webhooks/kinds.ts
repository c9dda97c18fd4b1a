import { WEBHOOK_KINDS } from '../../shared/webhook-kinds';

// The events a program's integrations can subscribe to (the list: src/shared/webhook-kinds.ts, so
// the wire schemas can name them too). Dotted names; user_card.created and balance.updated are the
// ones the original service documents. Payload shapes are in events.ts and docs/decisions.md; a
// change that is not additive gets a new WEBHOOK_API_VERSION.

export { WEBHOOK_KINDS };

export const WEBHOOK_API_VERSION = '2026-12-06';

export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** Sent only by POST /webhooks/:id/test; no endpoint subscribes to it. */
export const TEST_EVENT_KIND = 'webhook.test';

export function isWebhookKind(value: string): value is WebhookKind {
  return (WEBHOOK_KINDS as readonly string[]).includes(value);
}
