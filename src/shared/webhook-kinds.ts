// The event kinds a program's webhook endpoints can subscribe to, shared by the engine (which
// writes them) and the wire schemas (whose OpenAPI page lists them). Payload shapes: docs/decisions.md.

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
