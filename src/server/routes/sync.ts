import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Engine } from '../../core/engine';
import { acceptPushedEvents } from '../../core/sync/central/apply-push';
import { getOfflinePolicy, setOfflinePolicy } from '../../core/sync/central/offline-policy';
import { issuePairingCode, listSyncNodes, pairNode, revokeSyncNode } from '../../core/sync/central/pairing';
import { readChangesForNode } from '../../core/sync/central/read-changes';
import { readCustomerRows } from '../../core/sync/central/read-customer-rows';
import { readSnapshotPageJson, SNAPSHOT_PAGE_MAX } from '../../core/sync/central/read-snapshot';
import { newerStore, refuseWhatOnlyANewerStoreWrites } from '../../core/sync/central/refuse-newer-store';
import { replicatedTable } from '../../core/sync/replicated-tables';
import { isNewerLevel, SCHEMA_LEVEL_HEADER, wellFormedLevel } from '../../core/sync/schema-level';
import { listSyncExceptions } from '../../core/sync/central/sync-exceptions';
import { PUSH_EVENTS_MAX, type PushedEvent } from '../../core/sync/protocol';
import { ServiceError } from '../../shared/errors';
import { toIso } from '../../shared/time';
import { Nullable } from '../../shared/schemas/common';
import { requireBearer, vendorOf } from '../auth/bearer';
import { nodeOf, requireNodeCredential } from '../auth/node-credential';
import { markRateLimited, RateLimiter } from '../http/rate-limit';
import { watchLogHead } from '../sync/log-head-watcher';
import { watchRevocation } from '../sync/revocation-watcher';
import { isoOrNull, syncExceptionWire } from '../sync/sync-wire';
import { clientKey } from '../http/client-address';

const tags = ['Sync'];
const config = { style: 'resource' as const };


/** The schema level a store's request says it runs (absent from stores of earlier versions). */
function storeLevelOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers[SCHEMA_LEVEL_HEADER];
  return typeof value === 'string' ? value : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Most earlier ids one event may list per row it carries (each time a store follows central after a restore, one). */
const MOVED_IDS_PER_CHANGE = 100;
const isMovedRowId = (value: unknown): boolean =>
  Array.isArray(value) && value.length === 3 && typeof value[0] === 'string' && value[0].length > 0 && value[0].length <= 64 && Number.isSafeInteger(value[1]) && Number.isSafeInteger(value[2]);

/** A pushed event's shape, checked before anything reads it (a change or a balance that is not an object failed the push with a 500). */
function isBelievedBalance(value: unknown): boolean {
  return isObject(value) && typeof value['holder_type'] === 'string' && Number.isSafeInteger(value['holder_id']) && Number.isSafeInteger(value['currency_id']) && Number.isSafeInteger(value['balance']);
}

function refuseMalformedEvents(events: readonly unknown[]): void {
  for (const event of events) {
    if (!isObject(event)) throw new ServiceError('validation_failed', 'Each event needs node_seq, event_id and changes.', 'events');
    // The event id tells a resend from another event at the same node_seq (a store restored from a backup).
    const id = event['event_id'];
    if (!Number.isSafeInteger(event['node_seq']) || !Array.isArray(event['changes']) || typeof id !== 'string' || id.length === 0 || id.length > 100) {
      throw new ServiceError('validation_failed', 'Each event needs node_seq, event_id and changes.', 'events');
    }
    // A store numbers its events from 1 and dates them in Unix ms: anything else answered "applied"
    // while nothing was kept, and the store would have dropped the event as delivered.
    const type = event['type'];
    const createdAt = event['created_at'];
    if ((event['node_seq'] as number) < 1 || typeof type !== 'string' || type.length === 0 || type.length > 100 || typeof event['offline'] !== 'boolean' || !Number.isSafeInteger(createdAt) || (createdAt as number) < 0) {
      throw new ServiceError('validation_failed', 'Each event needs node_seq (from 1), type, offline (true or false) and created_at (Unix ms).', 'events');
    }
    if (!event['changes'].every((c) => isObject(c) && typeof c['tbl'] === 'string' && typeof c['op'] === 'string' && isObject(c['data']))) {
      throw new ServiceError('validation_failed', 'Each change needs tbl, op and data (an object).', 'events');
    }
    const believed = event['believed_available'];
    if (believed != null && !(Array.isArray(believed) && believed.every(isBelievedBalance))) {
      throw new ServiceError('validation_failed', 'believed_available must be a list of balances.', 'events');
    }
    const moved = event['moved_ids'];
    // A row moved k times lists k ids: a cap in proportion to the rows it carries, not a fixed one.
    if (moved != null && !(Array.isArray(moved) && moved.length <= MOVED_IDS_PER_CHANGE * Math.max(1, event['changes'].length) && moved.every(isMovedRowId))) {
      throw new ServiceError('validation_failed', 'moved_ids must be a list of [table, id, id].', 'events');
    }
  }
}

/** Central's side of sync (docs/sync.md): pairing, push, pull, the poke stream, and the chain's admin views. */
export const centralSyncRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  // Guessing pairing codes: 10 tries a minute per address; a code is 40 bits and lives 15 minutes.
  app.decorateRequest('syncNode', null);
  const node = requireNodeCredential(engine);
  const pairAttempts = new RateLimiter(engine, 10, 60_000);
  // After validation, as before: only well-formed tries count.
  const pairLimit = markRateLimited(async (request: FastifyRequest) => {
    const wait = await pairAttempts.hit(`sync-pair:ip:${clientKey(request.ip)}`);
    if (wait > 0) throw new ServiceError('rate_limited');
  });

  app.post(
    '/sync/pair',
    { config, preHandler: pairLimit, schema: { tags, body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }), label: Type.Optional(Type.String({ maxLength: 100 })) }) } },
    async (request, reply) => reply.code(201).send(await pairNode(engine, request.body.code, request.body.label ?? '')),
  );

  app.post(
    '/sync/push',
    { config, preValidation: node, bodyLimit: 16 * 1024 * 1024, schema: { tags, body: Type.Object({ events: Type.Array(Type.Any(), { maxItems: PUSH_EVENTS_MAX }) }) } },
    async (request) => {
      const events = request.body.events as PushedEvent[];
      refuseMalformedEvents(events);
      // A store upgraded before central (docs/sync.md, "Mixed versions"): held at the store, not lost here.
      await refuseWhatOnlyANewerStoreWrites(engine.db, engine.dialect, events, storeLevelOf(request.headers));
      const paired = nodeOf(request);
      const reply = await acceptPushedEvents(engine, paired, events);
      // Also in central's exceptions; in the log, the operator watching central hears it too. Told
      // again and again for one node, it is two machines running as that node.
      if (reply.diverged) {
        request.log.warn(
          { node_id: paired.id, store: paired.storeId, diverged_at: reply.diverged.node_seq },
          `store node ${paired.id} sent other events than central took at event ${reply.diverged.node_seq}: its folder was restored from a backup (it follows), or two machines run as this node (stop one)`,
        );
      }
      return reply;
    },
  );

  app.get(
    '/sync/pull',
    { config, preValidation: node, schema: { tags, querystring: Type.Object({ after: Type.Integer({ minimum: 0 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })) }) } },
    async (request) => {
      const paired = nodeOf(request);
      const page = await readChangesForNode(engine.db, paired, request.query.after, request.query.limit ?? 500);
      // Every round pulls: the store's version is known as of its last round (the chain page lists it).
      await engine.db.updateTable('sync_nodes').set({ cursor: page.cursor, last_seen_at: engine.clock.now(), schema_level: wellFormedLevel(storeLevelOf(request.headers)) }).where('id', '=', paired.id).execute();
      return page;
    },
  );

  // A first sync's snapshot: the vendor's current rows, one table at a time, paged by id.
  app.get(
    '/sync/snapshot',
    {
      config,
      preValidation: node,
      schema: {
        tags,
        querystring: Type.Object({
          table: Type.String({ minLength: 1, maxLength: 64 }),
          after: Type.Optional(Type.Integer({ minimum: 0 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SNAPSHOT_PAGE_MAX })),
          estimate: Type.Optional(Type.Boolean()),
          // Rows as value arrays under one list of columns (stores of this version ask for it).
          format: Type.Optional(Type.Union([Type.Literal('objects'), Type.Literal('columns')])),
        }),
      },
    },
    async (request, reply) => {
      const paired = nodeOf(request);
      const { table, after, limit, estimate, format } = request.query;
      // A table only a later version has: its first sync waits for central's upgrade, said so (not a 400 it retries).
      const level = storeLevelOf(request.headers);
      if (!replicatedTable(table) && isNewerLevel(level)) throw newerStore(level, `a first sync asking for table ${table}`);
      const page = await readSnapshotPageJson(engine.db, engine.dialect, paired, { table, after: after ?? 0, limit: limit ?? 5_000, estimate: estimate ?? false }, format ?? 'objects');
      // Seen once per snapshot (its first page), not a write per page.
      if (estimate) await engine.db.updateTable('sync_nodes').set({ last_seen_at: engine.clock.now(), schema_level: wellFormedLevel(level) }).where('id', '=', paired.id).execute();
      return reply.type('application/json; charset=utf-8').send(page);
    },
  );

  // A customer a store in its first sync has not received yet (its counter is waiting): their rows now.
  app.post(
    '/sync/customer',
    { config, preValidation: node, schema: { tags, body: Type.Object({ card_number: Type.String({ minLength: 1, maxLength: 254 }) }) } },
    async (request) => readCustomerRows(engine, nodeOf(request), request.body.card_number),
  );

  // "Pull now": a long-lived event stream that says when central's log grew; stores poll when it is down.
  app.get('/sync/stream', { config, preValidation: node, schema: { tags } }, async (request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-content-type-options': 'nosniff' });
    const stopPokes = watchLogHead(engine, (head) => reply.raw.write(`event: changes\ndata: {"head":${head}}\n\n`));
    const stop = () => {
      stopPokes();
      stopWatching();
    };
    // A node revoked while its stream is open is cut off too (its next request then hears node_revoked).
    const stopWatching = watchRevocation(engine, nodeOf(request).id, () => {
      stop();
      reply.raw.end();
    });
    request.raw.on('close', stop);
  });

  {
    const bearer = requireBearer(engine);
    const security = [{ bearer: [] }];
    app.post(
      '/sync/pairing-codes',
      { config, preValidation: bearer, schema: { tags, security, body: Type.Object({ store: Type.Integer({ minimum: 1 }) }) } },
      async (request, reply) => {
        const issued = await issuePairingCode(engine, vendorOf(request).vendorId, request.body.store);
        return reply.code(201).send({ code: issued.code, expires_at: toIso(issued.expiresAt) });
      },
    );
    app.get('/sync/nodes', { config, preValidation: bearer, schema: { tags, security } }, async (request) => ({
      items: (await listSyncNodes(engine, vendorOf(request).vendorId)).map((n) => ({
        id: n.id,
        store: n.storeId,
        label: n.label,
        last_event: n.lastSeq,
        cursor: n.cursor,
        last_seen_at: isoOrNull(n.lastSeenAt),
        paired_at: toIso(n.pairedAt),
        revoked_at: isoOrNull(n.revokedAt),
        schema_level: n.schemaLevel,
      })),
    }));
    app.delete('/sync/nodes/:id', { config, preValidation: bearer, schema: { tags, security, params: Type.Object({ id: Type.Integer({ minimum: 1 }) }) } }, async (request) => {
      await revokeSyncNode(engine, vendorOf(request).vendorId, request.params.id);
      return {};
    });
    app.get(
      '/sync/exceptions',
      { config, preValidation: bearer, schema: { tags, security, querystring: Type.Object({ open: Type.Optional(Type.Boolean()) }) } },
      async (request) => ({
        items: (await listSyncExceptions(engine, vendorOf(request).vendorId, { open: request.query.open ?? false })).map(syncExceptionWire),
      }),
    );
    const Cap = Nullable(Type.Integer({ minimum: 0 }));
    const policyToWire = (p: Awaited<ReturnType<typeof getOfflinePolicy>>) => ({
      quick_pay_per_order: p.quickPayPerOrder,
      quick_pay_per_day: p.quickPayPerDay,
      points_per_order: p.pointsPerOrder,
      points_per_day: p.pointsPerDay,
    });
    app.get('/sync/offline-policy', { config, preValidation: bearer, schema: { tags, security } }, async (request) => policyToWire(await getOfflinePolicy(engine, vendorOf(request))));
    app.put(
      '/sync/offline-policy',
      {
        config,
        preValidation: bearer,
        schema: {
          tags,
          security,
          body: Type.Object(
            { quick_pay_per_order: Type.Optional(Cap), quick_pay_per_day: Type.Optional(Cap), points_per_order: Type.Optional(Cap), points_per_day: Type.Optional(Cap) },
            { additionalProperties: false },
          ),
        },
      },
      async (request) =>
        policyToWire(
          await setOfflinePolicy(engine, vendorOf(request), {
            quickPayPerOrder: request.body.quick_pay_per_order,
            quickPayPerDay: request.body.quick_pay_per_day,
            pointsPerOrder: request.body.points_per_order,
            pointsPerDay: request.body.points_per_day,
          }),
        ),
    );
  }
};
