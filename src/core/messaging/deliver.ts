import type { Selectable } from 'kysely';
import type { Engine } from '../engine';
import type { MessagesOutboxTable } from '../storage/schema';
import { describeFailure, isPermanentFailure } from './delivery-error';
import { deliveryWindowMs, LAST_TRY_BEFORE_END_MS, outOfWindow } from './delivery-window';
import { type MessageTransports, type MessagingLogger, silentLogger } from './ports';
import type { MessageTemplate } from './queue-message';
import { openParams } from './sealed-params';
import { renderMessage } from './templates';

// The delivery side of the messages outbox. Rows move
//
//   pending ──claim──▶ sending ──▶ sent                 (params, sealed until then, cleared)
//      ▲                  │  └───▶ failed               (permanent error, or no longer worth sending; params cleared)
//      └── retry later ◀──┘
//
// A pass reads the due rows, then claims each one with a conditional UPDATE (the status and the
// attempt count it read must still be there) before sending, so two passes, in one process or
// several, never send the same message. A claim is a lease: `next_attempt_at` becomes the end of
// the lease, and a row left in `sending` by a process that died mid-send is due again when the
// lease ends (the only case where a message can go out twice); such a claim found abandoned is
// counted (`interrupted_sends`), and a message whose sending stopped the node three times is given
// up rather than retried through its window. No transaction is open while a message is being sent:
// each state change is one statement.

export interface RetryPolicy {
  /**
   * Claims of a message found still `sending` after their lease (its pass died mid-send) before it
   * is given up: a message whose sending kills the process would do so lease after lease through its
   * window. Ordinary failures are bound by the window alone (delivery-window.ts).
   */
  maxInterruptedSends: number;
  /** Wait after the first failure; doubles after each further failure. */
  baseDelayMs: number;
  /** Longest wait between two attempts. */
  maxDelayMs: number;
  /** How long a claimed message belongs to the pass that claimed it. Longer than any send. */
  leaseMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxInterruptedSends: 3,
  baseDelayMs: 5_000,
  maxDelayMs: 60 * 60_000,
  leaseMs: 5 * 60_000,
};

/** The wait before the next attempt after `attempts` failed ones: base × 2^(attempts−1), capped. */
export function retryDelayMs(attempts: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number {
  return Math.min(policy.baseDelayMs * 2 ** Math.max(0, attempts - 1), policy.maxDelayMs);
}

/**
 * When to try again a message that failed at `now` after `attempts` tries: the backoff's step, or,
 * when that would fall in the last minute of its window or after it, that last minute's start;
 * null once the last try was made (nothing left to try).
 */
export function nextTryAt(now: number, attempts: number, windowEnd: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number | null {
  const lastTry = windowEnd - LAST_TRY_BEFORE_END_MS;
  const step = now + retryDelayMs(attempts, policy);
  if (step <= lastTry) return step;
  return now < lastTry ? lastTry : null;
}

export interface DeliveryOptions {
  /** True once the worker is stopping: no further message of the batch is started. */
  stopping?: () => boolean;
  /** Most messages handled by one pass (default 50). */
  batchSize?: number;
  policy?: Partial<RetryPolicy>;
  logger?: MessagingLogger;
}

export interface DeliveryReport {
  sent: number;
  /** Failed this time, scheduled again. */
  retrying: number;
  /** Given up: permanent error, out of its window, or its sending stopped the node too often. */
  failed: number;
  /** Due, but claimed by another pass first. */
  skipped: number;
}

type OutboxRow = Selectable<MessagesOutboxTable>;

/**
 * Sends the messages due at `now` (pending, or left `sending` past their lease), oldest first, up
 * to one batch. Times written to the rows read engine.clock (never earlier than `now`).
 */
export async function deliverDueMessages(
  engine: Engine,
  transports: MessageTransports,
  now: number = engine.clock.now(),
  options: DeliveryOptions = {},
): Promise<DeliveryReport> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const logger = options.logger ?? silentLogger;
  const clock = () => Math.max(now, engine.clock.now());
  const report: DeliveryReport = { sent: 0, retrying: 0, failed: 0, skipped: 0 };

  const due = await engine.db
    .selectFrom('messages_outbox')
    .selectAll()
    .where('status', 'in', ['pending', 'sending'])
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.batchSize ?? 50)
    .execute();

  for (const row of due) {
    if (options.stopping?.()) break;
    const outcome = await deliverOne(engine, transports, row, policy, clock, logger);
    report[outcome] += 1;
  }
  return report;
}

async function deliverOne(
  engine: Engine,
  transports: MessageTransports,
  row: OutboxRow,
  policy: RetryPolicy,
  clock: () => number,
  logger: MessagingLogger,
): Promise<keyof DeliveryReport> {
  const attempts = row.attempts + 1;
  // Still `sending` past its lease: the pass that claimed it died while sending it.
  const interrupted = row.interrupted_sends + (row.status === 'sending' ? 1 : 0);
  const claimed = await engine.db
    .updateTable('messages_outbox')
    .set({ status: 'sending', attempts, interrupted_sends: interrupted, next_attempt_at: clock() + policy.leaseMs })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .where('attempts', '=', row.attempts)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return 'skipped';

  const log = { message_id: row.id, template: row.template, channel: row.channel, attempts };
  /** Until when the message is worth sending (delivery-window.ts). */
  const worthSendingUntil = row.created_at + deliveryWindowMs(row.template);
  const finish = () =>
    engine.db.updateTable('messages_outbox').where('id', '=', row.id).where('status', '=', 'sending').where('attempts', '=', attempts);
  const giveUp = async (reason: string): Promise<'failed'> => {
    await finish().set({ status: 'failed', params: null, last_error: reason }).execute();
    logger.error({ ...log, error: reason }, 'message not delivered; gave up');
    return 'failed';
  };

  let send: () => Promise<void>;
  let secrets: string[] = [];
  try {
    // Its sending stopped the node again and again: trying once more would stop it once more.
    if (interrupted >= policy.maxInterruptedSends) {
      throw new Error(`the message's sending was interrupted ${interrupted} times (the node stopped while sending it): given up so it cannot stop the node again`);
    }
    // Past its window (a claim ended after it; a node off all weekend): a code expired, a notice stale.
    if (clock() > worthSendingUntil) throw new Error(outOfWindow());
    // Sealed under the node key (queue-message.ts): opened here only to render the message.
    const params = openParams(engine, row.params) as Record<string, string> | null;
    if (params === null || typeof params !== 'object') throw new Error('the message has no parameters');
    secrets = Object.values(params);
    send = prepareSend(transports, row, params);
  } catch (error) {
    // A message that cannot be rendered never will be: no retry.
    return giveUp(describeFailure(error, secrets));
  }

  try {
    await send();
  } catch (error) {
    const reason = describeFailure(error, secrets);
    if (isPermanentFailure(error)) return giveUp(reason);
    const next = nextTryAt(clock(), attempts, worthSendingUntil, policy);
    // Its window's last try failed (a code about to expire): given up now, said now, and why.
    if (next === null) return giveUp(describeFailure(outOfWindow(reason)));
    await finish()
      .set({ status: 'pending', next_attempt_at: next, last_error: reason })
      .execute();
    logger.warn({ ...log, error: reason }, 'message not delivered; will retry');
    return 'retrying';
  }

  await finish().set({ status: 'sent', sent_at: clock(), params: null }).execute();
  logger.info(log, 'message delivered');
  return 'sent';
}

function prepareSend(transports: MessageTransports, row: OutboxRow, params: Record<string, string>): () => Promise<void> {
  const rendered = renderMessage(row.template as MessageTemplate, row.locale, params);
  if (row.channel === 'email' && 'subject' in rendered) {
    const mail = { from: transports.mailFrom, to: row.recipient, subject: rendered.subject, text: rendered.text, html: rendered.html, id: row.id };
    return () => transports.mail.send(mail);
  }
  if (row.channel === 'sms' && !('subject' in rendered)) {
    const sms = { to: row.recipient, text: rendered.text, id: row.id };
    return () => transports.sms.send(sms);
  }
  throw new Error(`template ${row.template} cannot be sent by ${row.channel}`);
}
