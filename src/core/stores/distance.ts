/** Mean Earth radius (IUGG), km. */
const EARTH_RADIUS_KM = 6371.0088;
export const KM_PER_MILE = 1.609344;

export type DistanceUnit = 'km' | 'mi';

export interface Position {
  latitude: number;
  longitude: number;
}

/** Great-circle distance (haversine) in km. */
export function haversineKm(a: Position, b: Position): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function inUnit(km: number, unit: DistanceUnit): number {
  return unit === 'mi' ? km / KM_PER_MILE : km;
}
