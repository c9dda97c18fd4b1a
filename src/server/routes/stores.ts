import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { listStores, type StoreRecord } from '../../core/stores/list-stores';
import { StoreListQuery, StoreListSchema } from '../../shared/schemas/consumer';

const tags = ['Stores'];
const config = { style: 'legacy' as const };

function storeWire(store: StoreRecord) {
  return {
    object: 'store' as const,
    id: store.id,
    name: store.name,
    address: store.address1,
    address2: store.address2,
    city: store.city,
    region: store.region,
    country: store.country,
    postal_code: store.postalCode,
    phone: store.phone,
    hours: store.hours,
    coordinates: store.position,
    distance: store.distance === null ? null : Math.round(store.distance * 100) / 100,
    time_zone: store.timeZone,
    open_now: store.openNow,
  };
}

/** GET /vendor/store/list: no credential (the app shows stores before login). */
export const storeRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get('/vendor/store/list', { config, schema: { tags, querystring: StoreListQuery, response: { 200: StoreListSchema } } }, async (request) => {
    const q = request.query;
    const stores = await listStores(engine, { vendorId: q.vendor, latitude: q.latitude, longitude: q.longitude, distance: q.distance, unit: q.unit });
    return { object: 'collection' as const, count: stores.length, data: stores.map(storeWire), next_page_url: null };
  });
};
