import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { issueApiKey, listApiKeys, revokeApiKey, storeOfApiKey } from '../../core/credentials/manage-api-keys';
import type { Engine } from '../../core/engine';
import { actorOf, requireStoreAccess, storeLimit } from '../../core/staff/authorize';
import { createStore, listAdminStores, loadAdminStore, updateStore } from '../../core/stores/store-admin';
import { AdminStoreSchema, ApiKeySchema, CreateStoreBody, IssueApiKeyBody, IssuedApiKeySchema, NumericIdParams, UpdateStoreBody } from '../../shared/schemas/backoffice';
import { requireStaff, screensUrl, staffOf } from '../auth/staff';
import { adminStoreToWire, apiKeyToWire, storeInputFromWire } from './store-admin-wire';

const tags = ['Back office'];
const config = { style: 'resource' as const };

/**
 * Stores and their API keys in the back office. Owners and managers reach every store of the
 * program; a store manager sees and keys only their own, and changes no store's details.
 */
export const backOfficeStoreRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get('/backoffice/stores', { config, preValidation: requireStaff(engine, 'stores.read'), schema: { tags, response: { 200: Type.Object({ items: Type.Array(AdminStoreSchema) }) } } }, async (request) => {
    const staff = staffOf(request);
    return { items: (await listAdminStores(engine, staff.vendorId, storeLimit(staff))).map(adminStoreToWire) };
  });

  app.get('/backoffice/stores/:id', { config, preValidation: requireStaff(engine, 'stores.read'), schema: { tags, params: NumericIdParams, response: { 200: AdminStoreSchema } } }, async (request) => {
    const staff = staffOf(request);
    requireStoreAccess(staff, request.params.id);
    return adminStoreToWire(await loadAdminStore(engine.db, engine, staff.vendorId, request.params.id));
  });

  const writers = requireStaff(engine, 'stores.write');
  app.post('/backoffice/stores', { config, preValidation: writers, schema: { tags, body: CreateStoreBody, response: { 201: AdminStoreSchema } } }, async (request, reply) => {
    const store = await createStore(engine, actorOf(staffOf(request)), storeInputFromWire(request.body));
    return reply.code(201).send(adminStoreToWire(store));
  });

  app.put('/backoffice/stores/:id', { config, preValidation: writers, schema: { tags, params: NumericIdParams, body: UpdateStoreBody, response: { 200: AdminStoreSchema } } }, async (request) =>
    adminStoreToWire(await updateStore(engine, actorOf(staffOf(request)), request.params.id, storeInputFromWire(request.body))),
  );

  const keyManagers = requireStaff(engine, 'keys.manage');
  app.get('/backoffice/stores/:id/keys', { config, preValidation: keyManagers, schema: { tags, params: NumericIdParams, response: { 200: Type.Object({ items: Type.Array(ApiKeySchema) }) } } }, async (request) => {
    const staff = staffOf(request);
    requireStoreAccess(staff, request.params.id);
    await loadAdminStore(engine.db, engine, staff.vendorId, request.params.id);
    return { items: (await listApiKeys(engine, staff.vendorId, request.params.id)).map(apiKeyToWire) };
  });

  app.post('/backoffice/stores/:id/keys', { config, preValidation: keyManagers, schema: { tags, params: NumericIdParams, body: IssueApiKeyBody, response: { 201: IssuedApiKeySchema } } }, async (request, reply) => {
    const staff = staffOf(request);
    requireStoreAccess(staff, request.params.id);
    const issued = await issueApiKey(engine, actorOf(staff), { storeId: request.params.id, role: request.body.role, label: request.body.label });
    return reply.code(201).send({ api_key: issued.key, key: apiKeyToWire(issued.listing), screens_url: screensUrl(request) });
  });

  app.delete('/backoffice/keys/:id', { config, preValidation: keyManagers, schema: { tags, params: NumericIdParams, response: { 200: ApiKeySchema } } }, async (request) => {
    const staff = staffOf(request);
    requireStoreAccess(staff, await storeOfApiKey(engine, staff.vendorId, request.params.id));
    return apiKeyToWire(await revokeApiKey(engine, actorOf(staff), request.params.id));
  });
};
