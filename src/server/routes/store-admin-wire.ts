import type { Static } from 'typebox';
import type { ApiKeyListing } from '../../core/credentials/manage-api-keys';
import type { AdminStore, StoreInput } from '../../core/stores/store-admin';
import type { AdminStoreSchema, ApiKeySchema, UpdateStoreBody } from '../../shared/schemas/backoffice';
import { toIso } from '../../shared/time';

export function adminStoreToWire(store: AdminStore): Static<typeof AdminStoreSchema> {
  return {
    id: store.id,
    name: store.name,
    address: store.address1,
    address2: store.address2,
    city: store.city,
    region: store.region,
    country: store.country,
    postal_code: store.postalCode,
    phone: store.phone,
    coordinates: store.latitude !== null && store.longitude !== null ? { latitude: store.latitude, longitude: store.longitude } : null,
    hours: store.hours,
    time_zone: store.timeZone,
    status: store.status,
    open_now: store.openNow,
    date_created: toIso(store.createdAt),
    date_updated: toIso(store.updatedAt),
  };
}

export function storeInputFromWire(body: Static<typeof UpdateStoreBody>): StoreInput {
  const coordinates = body.coordinates === undefined ? undefined : body.coordinates;
  return {
    name: body.name,
    address1: body.address,
    address2: body.address2,
    city: body.city,
    region: body.region,
    country: body.country,
    postalCode: body.postal_code,
    phone: body.phone,
    latitude: coordinates === undefined ? undefined : (coordinates?.latitude ?? null),
    longitude: coordinates === undefined ? undefined : (coordinates?.longitude ?? null),
    hours: body.hours,
    timeZone: body.time_zone,
    status: body.status,
  };
}

export function apiKeyToWire(key: ApiKeyListing): Static<typeof ApiKeySchema> {
  return {
    id: key.id,
    store_id: key.storeId,
    role: key.role,
    label: key.label,
    hint: key.hint,
    date_created: toIso(key.createdAt),
    last_used: key.lastUsedAt === null ? null : toIso(key.lastUsedAt),
    revoked: key.revokedAt === null ? null : toIso(key.revokedAt),
  };
}
