import type { Kysely } from 'kysely';
import { toUnixSeconds } from '../../shared/time';
import { type Engine, ownsProgramData, transact } from '../engine';
import { describeFailure } from '../messaging/delivery-error';
import { type MessagingLogger, silentLogger } from '../messaging/ports';
import { queueMessage } from '../messaging/queue-message';
import { type MessageLocale, resolveLocale } from '../messaging/templates';
import type { DB } from '../storage/schema';
import { signingSecrets } from './endpoints';
import { postWebhook, type WebhookAnswer, type WebhookPost } from './http-sender';
import { SIGNATURE_HEADER, signatureHeader } from './signing';

// The delivery side of the webhook outbox. A delivery moves
//
//   pending ──claim──▶ sending ──2xx──▶ succeeded
//      ▲                  │  ├──410──▶ failed, endpoint disabled ('gone'), admin emailed
//      │                  │  └──other answer, timeout, no connection, 3 days old──▶ failed
//      └── backoff ◀──────┘
//
// The claim is a conditional UPDATE and a lease (next_attempt_at = end of the lease), like the
// messages outbox: a process killed mid-request leaves the row `sending`, and it is due again
// when the lease ends (the receiver may then see the event twice: delivery is at least once,
// and the event id is stable). No transaction is open while a request is in flight.
//
// An endpoint that has failed every attempt for 3 days is disabled and its alert address
// emailed; its undelivered events wait (paused and disabled endpoints are skipped) until it is
// enabled again.

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** First retry at most this long after the first failure (with jitter, between half and all of it). */
export const FIRST_RETRY_MS = 60_000;
export const MAX_RETRY_DELAY_MS = 6 * 3600_000;
/** A delivery is retried for this long; an endpoint failing this long is disabled. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600_000;

export interface WebhookDeliveryOptions {
  /** http:// and internal addresses may be connected to (--webhooks-allow-private). */
  allowPrivate?: boolean;
  timeoutMs?: number;
  /** Most deliveries attempted by one pass (default 50). */
  batchSize?: number;
  /** Jitter source in [0, 1); Math.random by default (tests fix it). */
  random?: () => number;
  logger?: MessagingLogger;
  /** The HTTP client; postWebhook by default. */
  post?: (post: WebhookPost) => Promise<WebhookAnswer>;
  /**
   * The worker's lanes still running from earlier passes, by endpoint id. Given, a pass skips those
   * endpoints and returns once its own lanes are done or its time budget is spent, leaving a lane
   * that waits on a slow or hung receiver running here; without it, a pass waits for every lane.
   */
  lanesInFlight?: LanesInFlight;
}

/** Lanes left running past the pass that started them (each settles, never rejects), by endpoint id. */
export type LanesInFlight = Map<string, Promise<void>>;

export interface WebhookDeliveryReport {
  succeeded: number;
  retrying: number;
  failed: number;
  /** Due, but claimed by another pass first, held back behind a failure of the same endpoint, or left for the next pass by its lane's time budget. */
  skipped: number;
}

/** The wait after `attempts` failed attempts: 60 s × 2^(attempts−1), at most 6 h, times a jitter in [½, 1). */
export function webhookRetryDelayMs(attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** The JSON body of an event as receivers get it. */
export function eventBody(event: { id: string; type: string; api_version: string; created_at: number; vendor_id: number; data: string }): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    api_version: event.api_version,
    created: toUnixSeconds(event.created_at),
    vendor: event.vendor_id,
    data: JSON.parse(event.data) as unknown,
  });
}

function dueDeliveries(db: Kysely<DB>, now: number, limit: number, busyEndpoints: string[]) {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .select([
      'd.id',
      'd.status',
      'd.attempts',
      'd.created_at as delivery_created_at',
      'd.retry_from',
      'd.endpoint_id',
      'e.url',
      'e.secret_sealed',
      'e.previous_secret_sealed',
      'e.previous_secret_expires_at',
      'v.id as event_id',
      'v.type',
      'v.api_version',
      'v.created_at',
      'v.vendor_id',
      'v.data',
    ])
    .where('d.status', 'in', ['pending', 'sending'])
    .where('d.next_attempt_at', '<=', now)
    .where('e.status', '=', 'enabled')
    .where('e.deleted_at', 'is', null);
  // An endpoint whose lane is still sending keeps its order: its next events wait for that lane.
  if (busyEndpoints.length > 0) query = query.where('d.endpoint_id', 'not in', busyEndpoints);
  // In the order things happened, per endpoint where it can be (see the pass below).
  return query.orderBy('v.created_at').orderBy('d.id').limit(limit).execute();
}

type DueDelivery = Awaited<ReturnType<typeof dueDeliveries>>[number];

/** A lane starts no further delivery once its pass has run this long: the rest wait for the next pass. */
export const LANE_BUDGET_MS = 1_000;

/**
 * Sends the deliveries due at the engine clock's now, up to one batch: each endpoint's in its own
 * lane, its events in the order they happened, the lanes side by side — so a slow or hung receiver
 * delays only its own events (it held every other endpoint's behind its timeout). After a failure,
 * the endpoint's other deliveries wait for the next pass, so a receiver that is down costs one
 * timeout per pass, and events of one endpoint are not sent past an earlier one that just failed.
 * A lane starts nothing more once the pass is `LANE_BUDGET_MS` old, so a slow but working receiver
 * with many events does not hold the pass (and the next one, with others' new events) for long.
 * Does nothing on a replica node (the owner of the program's data delivers).
 */
export async function deliverDueWebhooks(engine: Engine, options: WebhookDeliveryOptions = {}): Promise<WebhookDeliveryReport> {
  const report: WebhookDeliveryReport = { succeeded: 0, retrying: 0, failed: 0, skipped: 0 };
  if (!ownsProgramData(engine)) return report;
  const inFlight = options.lanesInFlight;
  const due = await dueDeliveries(engine.db, engine.clock.now(), options.batchSize ?? 50, inFlight ? [...inFlight.keys()] : []);
  const lanes = new Map<string, DueDelivery[]>();
  for (const delivery of due) {
    const lane = lanes.get(delivery.endpoint_id);
    if (lane) lane.push(delivery);
    else lanes.set(delivery.endpoint_id, [delivery]);
  }
  const started = performance.now();
  const runLane = async (lane: DueDelivery[]) => {
    for (const [index, delivery] of lane.entries()) {
      if (index > 0 && performance.now() - started >= LANE_BUDGET_MS) {
        report.skipped += lane.length - index;
        return;
      }
      const outcome = await deliverOne(engine, delivery, options);
      report[outcome] += 1;
      if (outcome !== 'succeeded') {
        report.skipped += lane.length - index - 1;
        return;
      }
    }
  };
  if (!inFlight) {
    await Promise.all([...lanes.values()].map(runLane));
    return report;
  }
  // The worker's pass: lanes outlive it when they must, so a hung receiver (up to the 10 s timeout)
  // no longer holds back the next pass, and with it every other endpoint's new events.
  const logger = options.logger ?? silentLogger;
  const running = [...lanes].map(([endpointId, lane]) => {
    const run = runLane(lane)
      .catch((error: unknown) => logger.error({ err: error, endpoint_id: endpointId }, 'webhook delivery lane failed'))
      .finally(() => inFlight.delete(endpointId));
    inFlight.set(endpointId, run);
    return run;
  });
  let budget: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(running), new Promise<void>((resolve) => (budget = setTimeout(resolve, LANE_BUDGET_MS)))]);
  clearTimeout(budget);
  return report;
}

async function deliverOne(engine: Engine, row: DueDelivery, options: WebhookDeliveryOptions): Promise<keyof WebhookDeliveryReport> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const logger = options.logger ?? silentLogger;
  const attempts = row.attempts + 1;
  const claimedAt = engine.clock.now();
  const claimed = await engine.db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', attempts, next_attempt_at: claimedAt + timeoutMs + 5_000, last_attempt_at: claimedAt })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .where('attempts', '=', row.attempts)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return 'skipped';

  const log = { delivery_id: row.id, endpoint_id: row.endpoint_id, event_id: row.event_id, type: row.type, attempts };
  const body = eventBody({ ...row, id: row.event_id });
  const timestamp = toUnixSeconds(claimedAt);
  let status: number | null = null;
  let failure: string | null = null;
  try {
    const answer = await (options.post ?? postWebhook)({
      url: row.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Punchcard-Webhooks/1',
        [SIGNATURE_HEADER]: signatureHeader(signingSecrets(engine, row, claimedAt), timestamp, body),
      },
      timeoutMs,
      allowPrivate: options.allowPrivate ?? false,
    });
    status = answer.status;
    if (status < 200 || status > 299) failure = `HTTP ${status}`;
  } catch (error) {
    // Never the secret or the body: the error of a connection or a timeout.
    failure = describeFailure(error);
  }

  const now = engine.clock.now();
  const finish = (trx: Kysely<DB>) =>
    trx.updateTable('webhook_deliveries').where('id', '=', row.id).where('status', '=', 'sending').where('attempts', '=', attempts);

  if (failure === null) {
    await transact(engine, async (trx) => {
      await finish(trx).set({ status: 'succeeded', last_status_code: status, last_error: null, finished_at: now }).execute();
      await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', row.endpoint_id).execute();
    });
    logger.info({ ...log, status }, 'webhook delivered');
    return 'succeeded';
  }

  const outcome = await transact(engine, async (trx) => {
    const endpoint = await trx.selectFrom('webhook_endpoints').select(['failing_since']).where('id', '=', row.endpoint_id).executeTakeFirstOrThrow();
    const failingSince = endpoint.failing_since ?? now;
    await trx.updateTable('webhook_endpoints').set({ failing_since: failingSince }).where('id', '=', row.endpoint_id).execute();
    const gone = status === 410;
    // 3 days from when it was queued, or from when its endpoint was last enabled after holding it.
    const expired = now - (row.retry_from ?? row.delivery_created_at) >= GIVE_UP_AFTER_MS;
    if (gone || expired) {
      await finish(trx).set({ status: 'failed', last_status_code: status, last_error: failure, finished_at: now }).execute();
    } else {
      await finish(trx)
        .set({ status: 'pending', last_status_code: status, last_error: failure, next_attempt_at: now + webhookRetryDelayMs(attempts, options.random) })
        .execute();
    }
    if (gone) await disableEndpoint(trx, engine, row.endpoint_id, 'gone', failure);
    else if (now - failingSince >= GIVE_UP_AFTER_MS) await disableEndpoint(trx, engine, row.endpoint_id, 'failing', failure);
    return gone || expired ? 'failed' : 'retrying';
  });
  logger.warn({ ...log, status, error: failure }, outcome === 'failed' ? 'webhook not delivered; gave up' : 'webhook not delivered; will retry');
  return outcome;
}

const REASONS: Record<'gone' | 'failing', Record<MessageLocale, string>> = {
  gone: { en: 'the receiver answered 410 Gone', es: 'el receptor respondió 410 Gone' },
  failing: { en: 'every delivery failed for 3 days', es: 'todos los envíos fallaron durante 3 días' },
};

/** Disables an enabled endpoint and emails its alert address, once. */
async function disableEndpoint(trx: Kysely<DB>, engine: Engine, endpointId: string, reason: 'gone' | 'failing', lastError: string): Promise<void> {
  const now = engine.clock.now();
  const changed = await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', endpointId)
    .where('status', '=', 'enabled')
    .executeTakeFirst();
  if (Number(changed.numUpdatedRows) !== 1) return;
  const endpoint = await trx
    .selectFrom('webhook_endpoints as e')
    .innerJoin('vendors as v', 'v.id', 'e.vendor_id')
    .select(['e.url', 'e.alert_email', 'e.vendor_id', 'v.name', 'v.language'])
    .where('e.id', '=', endpointId)
    .executeTakeFirstOrThrow();
  if (endpoint.alert_email === null) return;
  await queueMessage(trx, engine, {
    vendorId: endpoint.vendor_id,
    channel: 'email',
    to: endpoint.alert_email,
    template: 'webhook_endpoint_disabled',
    locale: endpoint.language,
    params: { vendor_name: endpoint.name, url: endpoint.url, endpoint_id: endpointId, reason: REASONS[reason][resolveLocale(endpoint.language)], last_error: lastError },
  });
}
