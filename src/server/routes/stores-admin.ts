import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Actor } from '../../core/audit/record-audit';
import type { Engine } from '../../core/engine';
import { listStoresPage } from '../../core/stores/stores-page';
import { createStore, loadAdminStore, updateStore } from '../../core/stores/store-admin';
import { ListQuerySchema, pageOf } from '../../shared/schemas/common';
import { AdminStoreSchema, CreateStoreBody, NumericIdParams, UpdateStoreBody } from '../../shared/schemas/backoffice';
import { requireOnEveryRoute } from '../auth/credential';
import { requireBearer, vendorOf } from '../auth/bearer';
import { pageLinks } from '../http/page-links';
import { adminStoreToWire, storeInputFromWire } from './store-admin-wire';

const tags = ['Stores'];
const security = [{ bearer: [] }];
const config = { style: 'resource' as const };

/** The audit log names integrations by their credential kind. */
const apiActor = (vendorId: number): Actor => ({ vendorId, staffId: null, label: 'api' });

/** Stores for integrations (admin bearer token): the same fields and checks as the back office. */
export const storeAdminRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  requireOnEveryRoute(app, requireBearer(engine));

  app.get('/stores', { config, schema: { tags, security, querystring: ListQuerySchema, response: { 200: pageOf(AdminStoreSchema) } } }, async (request) => {
    const page = await listStoresPage(engine, vendorOf(request).vendorId, request.query);
    return { items: page.items.map(adminStoreToWire), ...pageLinks(request, page) };
  });

  app.get('/stores/:id', { config, schema: { tags, security, params: NumericIdParams, response: { 200: AdminStoreSchema } } }, async (request) =>
    adminStoreToWire(await loadAdminStore(engine.db, engine, vendorOf(request).vendorId, request.params.id)),
  );

  app.post('/stores', { config, schema: { tags, security, body: CreateStoreBody, response: { 201: AdminStoreSchema } } }, async (request, reply) => {
    const store = await createStore(engine, apiActor(vendorOf(request).vendorId), storeInputFromWire(request.body));
    return reply.code(201).send(adminStoreToWire(store));
  });

  app.put('/stores/:id', { config, schema: { tags, security, params: NumericIdParams, body: UpdateStoreBody, response: { 200: AdminStoreSchema } } }, async (request) =>
    adminStoreToWire(await updateStore(engine, apiActor(vendorOf(request).vendorId), request.params.id, storeInputFromWire(request.body))),
  );
};
