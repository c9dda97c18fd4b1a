import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Actor, recordAudit } from '../audit/record-audit';
import { cleanPhone } from '../customers/contact';
import { type Engine, ownsProgramData, transact } from '../engine';
import { findCountryByCode } from '../geo/countries';
import { nextObjectId } from '../storage/ids';
import type { DB, StoresTable } from '../storage/schema';
import { checkOpeningHours, checkTimeZone, isOpenAt } from './opening-hours';

// Stores as the merchant administers them (back office, bearer API, `punchcard stores`).

export const STORE_STATUSES = ['active', 'inactive'] as const;
export type StoreStatus = (typeof STORE_STATUSES)[number];

export interface StoreFields {
  name: string;
  address1: string;
  address2: string | null;
  city: string;
  region: string | null;
  country: string;
  postalCode: string | null;
  phone: string | null;
  latitude: number | null;
  longitude: number | null;
  hours: Record<string, string> | null;
  timeZone: string;
  status: StoreStatus;
}

export interface AdminStore extends StoreFields {
  id: number;
  vendorId: number;
  openNow: boolean | null;
  createdAt: number;
  updatedAt: number;
}

export type StoreInput = Partial<{ [K in keyof StoreFields]: StoreFields[K] | undefined }>;

export function toAdminStore(row: Selectable<StoresTable>, now: number): AdminStore {
  const hours = readHours(row.hours);
  return {
    id: row.id,
    vendorId: row.vendor_id,
    name: row.name,
    address1: row.address1,
    address2: row.address2,
    city: row.city,
    region: row.region,
    country: row.country,
    postalCode: row.postal_code,
    phone: row.phone,
    latitude: row.latitude === null ? null : Number(row.latitude),
    longitude: row.longitude === null ? null : Number(row.longitude),
    hours,
    timeZone: row.time_zone,
    status: row.status as StoreStatus,
    openNow: isOpenAt(hours, row.time_zone, now),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function readHours(text: string | null): Record<string, string> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, string>) : null;
  } catch {
    return null;
  }
}

function text(value: string | null | undefined, field: string, { required, max }: { required: boolean; max: number }): string | null {
  const clean = value?.trim() ?? '';
  if (clean === '') {
    if (required) throw new ServiceError('validation_failed', `${field} is required.`, field);
    return null;
  }
  if (clean.length > max) throw new ServiceError('validation_failed', `${field} must be at most ${max} characters.`, field);
  return clean;
}

/** The full set of fields after applying `input` over `base` (a new store has none), checked. */
function checkFields(input: StoreInput, base: StoreFields | null): StoreFields {
  const pick = <K extends keyof StoreFields>(key: K): StoreFields[K] | undefined => (input[key] !== undefined ? (input[key] as StoreFields[K]) : base?.[key]);
  const country = text(pick('country'), 'country', { required: true, max: 2 })!.toUpperCase();
  // A known country only: customers find stores by it, and phones and time zones are read in it ("XX" was taken).
  if (!findCountryByCode(country)) throw new ServiceError('validation_failed', 'country must be a two-letter ISO 3166-1 code.', 'country');
  const latitude = pick('latitude') ?? null;
  const longitude = pick('longitude') ?? null;
  if ((latitude === null) !== (longitude === null)) throw new ServiceError('validation_failed', 'latitude and longitude go together.', latitude === null ? 'latitude' : 'longitude');
  if (latitude !== null && !(latitude >= -90 && latitude <= 90)) throw new ServiceError('validation_failed', 'latitude must be between -90 and 90.', 'latitude');
  if (longitude !== null && !(longitude >= -180 && longitude <= 180)) throw new ServiceError('validation_failed', 'longitude must be between -180 and 180.', 'longitude');
  const status = pick('status') ?? 'active';
  if (!STORE_STATUSES.includes(status)) throw new ServiceError('validation_failed', 'status must be active or inactive.', 'status');
  const phone = text(pick('phone'), 'phone', { required: false, max: 40 });
  // Hours are checked when they are sent: a change of another field keeps the stored ones as they are
  // (hours written before a check was added must not stop a rename).
  const hours = input.hours !== undefined ? (input.hours === null ? null : checkOpeningHours(input.hours)) : (base?.hours ?? null);
  return {
    name: text(pick('name'), 'name', { required: true, max: 100 })!,
    address1: text(pick('address1'), 'address', { required: true, max: 200 })!,
    address2: text(pick('address2'), 'address2', { required: false, max: 200 }),
    city: text(pick('city'), 'city', { required: true, max: 100 })!,
    region: text(pick('region'), 'region', { required: false, max: 100 }),
    country,
    postalCode: text(pick('postalCode'), 'postal_code', { required: false, max: 20 }),
    phone: phone === null ? null : cleanPhone(phone, { country }, 'phone'),
    latitude,
    longitude,
    hours,
    timeZone: checkTimeZone(pick('timeZone') ?? 'UTC'),
    status,
  };
}

function columns(fields: StoreFields) {
  return {
    name: fields.name,
    address1: fields.address1,
    address2: fields.address2,
    city: fields.city,
    region: fields.region,
    country: fields.country,
    postal_code: fields.postalCode,
    phone: fields.phone,
    latitude: fields.latitude,
    longitude: fields.longitude,
    hours: fields.hours === null ? null : JSON.stringify(fields.hours),
    time_zone: fields.timeZone,
    status: fields.status,
  };
}

/** What the audit log keeps of a store. */
function storeAudit(store: AdminStore): StoreFields {
  const { id: _id, vendorId: _v, openNow: _o, createdAt: _c, updatedAt: _u, ...fields } = store;
  return fields;
}

export async function loadAdminStore(db: Kysely<DB>, engine: Engine, vendorId: number, storeId: number): Promise<AdminStore> {
  const row = await db.selectFrom('stores').selectAll().where('vendor_id', '=', vendorId).where('id', '=', storeId).executeTakeFirst();
  if (!row) throw new ServiceError('store_not_found');
  return toAdminStore(row, engine.clock.now());
}

/** The program's stores by name; `onlyStoreId` limits a store manager to theirs. */
export async function listAdminStores(engine: Engine, vendorId: number, onlyStoreId: number | null = null): Promise<AdminStore[]> {
  let query = engine.db.selectFrom('stores').selectAll().where('vendor_id', '=', vendorId);
  if (onlyStoreId !== null) query = query.where('id', '=', onlyStoreId);
  const rows = await query.orderBy('name').orderBy('id').execute();
  const now = engine.clock.now();
  return rows.map((row) => toAdminStore(row, now));
}

/**
 * Stores and their keys travel central → store only: one changed at a paired store would stay
 * there (a key revoked there still working at central, which the store forwards calls to).
 */
export function storesOwnedHere(engine: Engine): void {
  if (!ownsProgramData(engine)) throw new ServiceError('stores_managed_by_central');
}

/** A new store with its first point of sale ("Counter 1"), so keys can be issued for it at once. */
export function createStore(engine: Engine, actor: Actor, input: StoreInput): Promise<AdminStore> {
  storesOwnedHere(engine);
  const fields = checkFields(input, null);
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    const id = await nextObjectId(trx, engine.nodeId);
    await trx.insertInto('stores').values({ id, vendor_id: actor.vendorId, ...columns(fields), created_at: now, updated_at: now }).execute();
    await trx
      .insertInto('points_of_sale')
      .values({ id: await nextObjectId(trx, engine.nodeId), vendor_id: actor.vendorId, store_id: id, name: 'Counter 1', status: 'ACTIVE', created_at: now, updated_at: now })
      .execute();
    const store = await loadAdminStore(trx, engine, actor.vendorId, id);
    await recordAudit(trx, engine, actor, { action: 'store.create', objectType: 'store', objectId: id, before: null, after: storeAudit(store) });
    return store;
  });
}

/** Changes the fields given; the rest stay. */
export function updateStore(engine: Engine, actor: Actor, storeId: number, input: StoreInput): Promise<AdminStore> {
  storesOwnedHere(engine);
  return transact(engine, async (trx) => {
    const before = await loadAdminStore(trx, engine, actor.vendorId, storeId);
    const fields = checkFields(input, before);
    await trx.updateTable('stores').set({ ...columns(fields), updated_at: engine.clock.now() }).where('id', '=', storeId).where('vendor_id', '=', actor.vendorId).execute();
    const after = await loadAdminStore(trx, engine, actor.vendorId, storeId);
    await recordAudit(trx, engine, actor, { action: 'store.update', objectType: 'store', objectId: storeId, before: storeAudit(before), after: storeAudit(after) });
    return after;
  });
}
