import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { newSecret } from '../credentials/secrets';
import { type Engine, transact, type VendorScope } from '../engine';
import { newPublicId } from '../storage/ids';
import type { DB, WebhookEndpointsTable } from '../storage/schema';
import { checkEndpointUrl } from './endpoint-url';
import { isWebhookKind, WEBHOOK_KINDS, type WebhookKind } from './kinds';

// A program's webhook endpoints, managed with the vendor's bearer. The signing secret is shown
// once (on creation and on rotation) and stored sealed with the node key.

/** How long the old secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3600_000;

/**
 * Most endpoints a program has (not counting deleted ones). Every event is written once per
 * subscribed endpoint inside the sale (or other change) that causes it, so endpoints without end
 * would slow every sale of the program; the message in errors.ts names this number.
 */
export const MAX_ENDPOINTS_PER_PROGRAM = 20;

export type EndpointStatus = 'enabled' | 'paused' | 'disabled';
export type EndpointRow = Selectable<WebhookEndpointsTable>;

export interface EndpointRecord {
  id: string;
  url: string;
  events: WebhookKind[];
  description: string | null;
  alertEmail: string | null;
  status: EndpointStatus;
  /** Why a disabled endpoint was disabled: 'failing' (3 days of failures) or 'gone' (410). */
  disabledReason: string | null;
  /** Until when the previous secret still signs (after a rotation); null otherwise. */
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface EndpointInput {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  alert_email?: string | null | undefined;
  status?: string | undefined;
}

export interface EndpointPolicy {
  /** --webhooks-allow-private: http:// and internal addresses accepted. */
  allowPrivate: boolean;
}

export function toEndpointRecord(row: EndpointRow, now: number): EndpointRecord {
  const overlap = row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookKind[],
    description: row.description,
    alertEmail: row.alert_email,
    status: row.status as EndpointStatus,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: overlap,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function checkEvents(events: string[]): WebhookKind[] {
  const unknown = events.filter((kind) => !isWebhookKind(kind));
  if (unknown.length > 0) throw new ServiceError('validation_failed', `Unknown event kinds: ${unknown.join(', ')}. The kinds are: ${WEBHOOK_KINDS.join(', ')}.`, 'events');
  if (events.length === 0) throw new ServiceError('validation_failed', 'Subscribe to at least one event kind.', 'events');
  return [...new Set(events)] as WebhookKind[];
}

function checkAlertEmail(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const email = value.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw new ServiceError('invalid_email', undefined, 'alert_email');
  return email;
}

function checkDescription(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  if (text.length > 500) throw new ServiceError('validation_failed', 'The description is at most 500 characters.', 'description');
  return text === '' ? null : text;
}

export async function findEndpoint(db: Kysely<DB>, scope: VendorScope, id: string): Promise<EndpointRow> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('vendor_id', '=', scope.vendorId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ServiceError('webhook_not_found');
  return row;
}

/** POST /webhooks: a new enabled endpoint and its signing secret (returned only here and on rotation). */
export async function createWebhookEndpoint(engine: Engine, scope: VendorScope, input: EndpointInput, policy: EndpointPolicy): Promise<{ endpoint: EndpointRecord; secret: string }> {
  if (input.url === undefined) throw new ServiceError('validation_failed', 'The endpoint needs a url.', 'url');
  if (input.events === undefined) throw new ServiceError('validation_failed', 'The endpoint needs the event kinds it wants.', 'events');
  const url = checkEndpointUrl(input.url, policy.allowPrivate);
  const events = checkEvents(input.events);
  const description = checkDescription(input.description);
  const alertEmail = checkAlertEmail(input.alert_email);
  const held = await engine.db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('vendor_id', '=', scope.vendorId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  if (Number(held.count) >= MAX_ENDPOINTS_PER_PROGRAM) throw new ServiceError('webhook_endpoint_limit');
  const secret = newSecret('whsec');
  const now = engine.clock.now();
  const row: EndpointRow = {
    id: newPublicId('wh'),
    vendor_id: scope.vendorId,
    url,
    events: JSON.stringify(events),
    description,
    alert_email: alertEmail,
    status: 'enabled',
    disabled_reason: null,
    secret_sealed: engine.sealer.seal(secret),
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await engine.db.insertInto('webhook_endpoints').values(row).execute();
  return { endpoint: toEndpointRecord(row, now), secret };
}

export async function listWebhookEndpoints(engine: Engine, scope: VendorScope): Promise<EndpointRecord[]> {
  const rows = await engine.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('vendor_id', '=', scope.vendorId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const now = engine.clock.now();
  return rows.map((row) => toEndpointRecord(row, now));
}

export async function getWebhookEndpoint(engine: Engine, scope: VendorScope, id: string): Promise<EndpointRecord> {
  return toEndpointRecord(await findEndpoint(engine.db, scope, id), engine.clock.now());
}

/**
 * PUT /webhooks/:id: url, events, description, alert_email, and status `enabled` or `paused`
 * (a paused endpoint keeps its events and gets them when enabled again; enabling a disabled one
 * starts it afresh). An endpoint is `disabled` only by the delivery worker.
 */
export async function updateWebhookEndpoint(engine: Engine, scope: VendorScope, id: string, input: EndpointInput, policy: EndpointPolicy): Promise<EndpointRecord> {
  return transact(engine, async (trx) => {
    const row = await findEndpoint(trx, scope, id);
    const changes: Partial<EndpointRow> = { updated_at: engine.clock.now() };
    if (input.url !== undefined) changes.url = checkEndpointUrl(input.url, policy.allowPrivate);
    if (input.events !== undefined) changes.events = JSON.stringify(checkEvents(input.events));
    if (input.description !== undefined) changes.description = checkDescription(input.description);
    if (input.alert_email !== undefined) changes.alert_email = checkAlertEmail(input.alert_email);
    if (input.status !== undefined) {
      if (input.status !== 'enabled' && input.status !== 'paused') {
        throw new ServiceError('validation_failed', 'status is "enabled" or "paused".', 'status');
      }
      changes.status = input.status;
      if (input.status === 'enabled' && row.status !== 'enabled') Object.assign(changes, { disabled_reason: null, failing_since: null });
    }
    await trx.updateTable('webhook_endpoints').set(changes).where('id', '=', row.id).execute();
    if (changes.status === 'enabled' && row.status !== 'enabled') {
      // Held deliveries go out at once, not at the end of a backoff that ran while it was off, and
      // get their 3 days of retries from now: held longer, they were given up at their first failure.
      const now = engine.clock.now();
      await trx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now, retry_from: now })
        .where('endpoint_id', '=', row.id)
        .where('status', '=', 'pending')
        .execute();
    }
    return toEndpointRecord({ ...row, ...changes }, engine.clock.now());
  });
}

/** DELETE /webhooks/:id: the endpoint stops receiving; its undelivered events are cancelled. */
export async function deleteWebhookEndpoint(engine: Engine, scope: VendorScope, id: string): Promise<void> {
  await transact(engine, async (trx) => {
    const row = await findEndpoint(trx, scope, id);
    const now = engine.clock.now();
    await trx.updateTable('webhook_endpoints').set({ deleted_at: now, updated_at: now }).where('id', '=', row.id).execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled', finished_at: now })
      .where('endpoint_id', '=', row.id)
      .where('status', 'in', ['pending', 'sending'])
      .execute();
  });
}

/**
 * POST /webhooks/:id/rotate-secret: a new secret signs from now on; the current one keeps signing
 * alongside it for 24 hours, so receivers can switch without losing an event.
 */
export async function rotateWebhookSecret(engine: Engine, scope: VendorScope, id: string): Promise<{ endpoint: EndpointRecord; secret: string }> {
  return transact(engine, async (trx) => {
    const row = await findEndpoint(trx, scope, id);
    const now = engine.clock.now();
    const secret = newSecret('whsec');
    const changes = {
      secret_sealed: engine.sealer.seal(secret),
      previous_secret_sealed: row.secret_sealed,
      previous_secret_expires_at: now + SECRET_OVERLAP_MS,
      updated_at: now,
    };
    await trx.updateTable('webhook_endpoints').set(changes).where('id', '=', row.id).execute();
    return { endpoint: toEndpointRecord({ ...row, ...changes }, now), secret };
  });
}

/** The secrets that sign a request sent at `now`: the current one, and the previous during its overlap. */
export function signingSecrets(engine: Engine, row: Pick<EndpointRow, 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at'>, now: number): string[] {
  const secrets = [engine.sealer.open(row.secret_sealed)];
  if (row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now) {
    secrets.push(engine.sealer.open(row.previous_secret_sealed));
  }
  return secrets;
}
