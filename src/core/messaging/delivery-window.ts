import type { MessageTemplate } from './queue-message';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long after it was queued each message is still worth sending: a transient failure (the mail
 * server down, a 4xx) is retried until then, and given up on once the next try would fall after it.
 * A one-time code's message lives as long as its code (a later one is of no use; the customer asks
 * again); an eGift's claim code is money valid until claimed and an invitation lasts three days, so
 * an afternoon's mail outage must not lose them (eight tries, ~11 minutes, did). Notices to the
 * program's people wait a week.
 */
export const DELIVERY_WINDOW_MS: Record<MessageTemplate, number> = {
  // customers/one-time-codes.ts CODE_POLICY's ttlMinutes
  password_reset: HOUR,
  email_verification: DAY,
  sms_verification: 10 * MINUTE,
  account_deletion: 30 * MINUTE,
  egift_received: 7 * DAY,
  billing_profile_expiring: 7 * DAY,
  webhook_endpoint_disabled: 7 * DAY,
  // staff/staff-tokens.ts STAFF_TOKEN_HOURS
  staff_invitation: 72 * HOUR,
  staff_password_reset: 2 * HOUR,
};

/** A template unknown to this version (a row from a newer one): the shortest window of all. */
export function deliveryWindowMs(template: string): number {
  return Object.hasOwn(DELIVERY_WINDOW_MS, template) ? DELIVERY_WINDOW_MS[template as MessageTemplate] : 10 * MINUTE;
}
