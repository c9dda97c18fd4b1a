import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listChainExceptions, listStoreNodeHealth, resolveChainException } from '../../core/chain-health/chain-health';
import type { ExceptionOrder } from '../../core/chain-health/exception-orders';
import { unpairStoreNode } from '../../core/chain-health/unpair-store-node';
import type { Engine } from '../../core/engine';
import { requireStoreAccess, storeLimit } from '../../core/staff/authorize';
import { ChainHealthQuery, ChainHealthSchema, ResolveBody, SyncExceptionSchema } from '../../shared/schemas/backoffice-screens';
import { toIso } from '../../shared/time';
import { requireStaff, staffOf } from '../auth/staff';
import { isoOrNull, syncExceptionWire } from '../sync/sync-wire';

const tags = ['Back office'];
const orderWire = (order: ExceptionOrder) => ({ id: order.id, receipt_number: order.receiptNumber, customer: order.customer });
const config = { style: 'resource' as const };

/**
 * The chain's health in the back office (central): each paired store node's last contact, pending
 * changes, first sync and rejected events, and the exceptions to resolve. A store node answers
 * with role "store" and no nodes. A store manager sees their own store's. Owners and managers unpair a
 * node (a till replaced or gone), audited.
 */
export const backOfficeChainRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; role: 'central' | 'store' }> = async (app, { engine, role }) => {
  app.get('/backoffice/chain', { config, preValidation: requireStaff(engine, 'stores.read'), schema: { tags, querystring: ChainHealthQuery, response: { 200: ChainHealthSchema } } }, async (request) => {
    const staff = staffOf(request);
    const asked = request.query.store ?? null;
    if (asked !== null) requireStoreAccess(staff, asked);
    const only = asked ?? storeLimit(staff);
    const nodes = await listStoreNodeHealth(engine, staff.vendorId, only);
    const exceptions = await listChainExceptions(engine, staff.vendorId, only, { resolved: request.query.resolved ?? false });
    return {
      role,
      nodes: nodes.map((n) => ({
        id: n.id,
        store: n.storeId,
        store_name: n.storeName,
        label: n.label,
        paired_at: toIso(n.pairedAt),
        last_seen_at: isoOrNull(n.lastSeenAt),
        last_event: n.lastEvent,
        pending_changes: n.pendingChanges,
        pending_changes_capped: n.pendingChangesCapped,
        first_sync: n.firstSync,
        rejected_events: n.rejectedEvents,
        open_exceptions: n.openExceptions,
        revoked_at: isoOrNull(n.revokedAt),
        schema_level: n.schemaLevel,
        version: n.version,
      })),
      exceptions: exceptions.map((e) => ({
        ...syncExceptionWire(e),
        customers: e.customers,
        message_data: e.said,
        order: e.order === null ? null : orderWire(e.order),
        mentioned_orders: e.mentionedOrders.map(orderWire),
      })),
    };
  });

  app.post(
    '/backoffice/chain/exceptions/:id/resolve',
    { config, preValidation: requireStaff(engine, 'customers.write'), schema: { tags, params: Type.Object({ id: Type.Integer({ minimum: 1 }) }), body: ResolveBody, response: { 200: SyncExceptionSchema } } },
    async (request) => syncExceptionWire(await resolveChainException(engine, staffOf(request), request.params.id, request.body.note)),
  );

  app.delete(
    '/backoffice/chain/nodes/:id',
    {
      config,
      preValidation: requireStaff(engine, 'stores.write'),
      schema: { tags, params: Type.Object({ id: Type.Integer({ minimum: 1 }) }), response: { 200: Type.Object({ id: Type.Integer(), revoked_at: Type.String() }) } },
    },
    async (request) => {
      const unpaired = await unpairStoreNode(engine, staffOf(request), request.params.id);
      return { id: unpaired.id, revoked_at: toIso(unpaired.revokedAt) };
    },
  );
};
