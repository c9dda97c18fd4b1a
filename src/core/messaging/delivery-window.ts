import type { MessageTemplate } from './queue-message';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long after it was queued each message is still worth sending: a transient failure (the mail
 * server down, a 4xx) is retried until then, the last try a minute before its end (LAST_TRY_BEFORE_END_MS).
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

/**
 * How long before its window ends a message's last try is made, when the backoff's next step would
 * fall after the end (doubling waits left the last third of each window untried): the customer
 * still has a moment to use what it carries. Every window is 10 minutes or more.
 */
export const LAST_TRY_BEFORE_END_MS = MINUTE;

/**
 * Why a message was given up at the end of its window, the same words in `last_error` and the log
 * whichever pass noticed it: with the failure of its last try, when it had one.
 */
export function outOfWindow(lastFailure?: string): string {
  const why = 'the message is no longer worth sending (its window has passed)';
  return lastFailure === undefined ? why : `${why}; last error: ${lastFailure}`;
}
