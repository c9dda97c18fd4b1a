import type { Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { loadVendor } from '../customers/customer-store';
import type { Engine } from '../engine';
import type { StoresTable } from '../storage/schema';
import { isOpenAt } from './opening-hours';
import { type DistanceUnit, haversineKm, inUnit, type Position } from './distance';

export interface StoreRecord {
  id: number;
  name: string;
  address1: string;
  address2: string | null;
  city: string;
  region: string | null;
  country: string;
  postalCode: string | null;
  phone: string | null;
  hours: Record<string, unknown> | null;
  position: Position | null;
  /** In the unit asked for; null without a position to measure from, or a store without coordinates. */
  distance: number | null;
  /** IANA time zone the hours are read in. */
  timeZone: string;
  /** Open at this moment by its hours; null when it has none the node can read. */
  openNow: boolean | null;
}

export interface StoreSearch {
  vendorId: number;
  latitude?: number | undefined;
  longitude?: number | undefined;
  /** Radius around the position, in `unit`. */
  distance?: number | undefined;
  /** km (default) or mi, any letter case. */
  unit?: string | undefined;
}

/**
 * GET /vendor/store/list: the vendor's stores. Without a position, by name. With latitude and
 * longitude, nearest first (stores without coordinates last, by name), each with its distance;
 * with `distance` too, only the stores within that radius (a store without coordinates is never
 * within it).
 */
export async function listStores(engine: Engine, search: StoreSearch): Promise<StoreRecord[]> {
  const unit = parseUnit(search.unit);
  const origin = parsePosition(search);
  if (search.distance !== undefined && !origin) {
    throw new ServiceError('validation_failed', 'distance needs a position: send latitude and longitude too.', 'distance');
  }
  if (search.distance !== undefined && !(search.distance > 0)) throw new ServiceError('validation_failed', 'distance must be greater than 0.', 'distance');
  await loadVendor(engine.db, search.vendorId);
  // Inactive stores (closed for good, not yet open) are not shown to customers.
  const rows = await engine.db.selectFrom('stores').selectAll().where('vendor_id', '=', search.vendorId).where('status', '=', 'active').execute();
  const byName = (a: StoreRecord, b: StoreRecord) => a.name.localeCompare(b.name) || a.id - b.id;
  const now = engine.clock.now();
  const stores = rows.map((row) => toStoreRecord(row, origin, unit, now));
  if (!origin) return stores.sort(byName);
  return stores
    .filter((s) => search.distance === undefined || (s.distance !== null && s.distance <= search.distance))
    .sort((a, b) => {
      if (a.distance === null || b.distance === null) return a.distance === b.distance ? byName(a, b) : a.distance === null ? 1 : -1;
      return a.distance - b.distance || byName(a, b);
    });
}

function parseUnit(unit: string | undefined): DistanceUnit {
  const value = (unit ?? 'km').trim().toLowerCase();
  if (value !== 'km' && value !== 'mi') throw new ServiceError('validation_failed', 'unit must be km or mi.', 'unit');
  return value;
}

function parsePosition(search: StoreSearch): Position | null {
  const { latitude, longitude } = search;
  if (latitude === undefined && longitude === undefined) return null;
  if (latitude === undefined) throw new ServiceError('validation_failed', 'latitude is required with longitude.', 'latitude');
  if (longitude === undefined) throw new ServiceError('validation_failed', 'longitude is required with latitude.', 'longitude');
  if (!(latitude >= -90 && latitude <= 90)) throw new ServiceError('validation_failed', 'latitude must be between -90 and 90.', 'latitude');
  if (!(longitude >= -180 && longitude <= 180)) throw new ServiceError('validation_failed', 'longitude must be between -180 and 180.', 'longitude');
  return { latitude, longitude };
}

function toStoreRecord(row: Selectable<StoresTable>, origin: Position | null, unit: DistanceUnit, now: number): StoreRecord {
  const hours = parseHours(row.hours);
  const position = row.latitude !== null && row.longitude !== null ? { latitude: Number(row.latitude), longitude: Number(row.longitude) } : null;
  return {
    id: row.id,
    name: row.name,
    address1: row.address1,
    address2: row.address2,
    city: row.city,
    region: row.region,
    country: row.country,
    postalCode: row.postal_code,
    phone: row.phone,
    hours,
    position,
    distance: origin && position ? inUnit(haversineKm(origin, position), unit) : null,
    timeZone: row.time_zone,
    openNow: isOpenAt(hours, row.time_zone, now),
  };
}

/** Opening hours are a JSON object; anything else stored there reads as none. */
function parseHours(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
