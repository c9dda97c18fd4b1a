import type { ScannerStation } from '../../shared/schemas/scanners';
import type { Engine } from '../engine';

// Which station each scanner a store node reads serves: the counter or the kiosk. No row means not
// assigned: every screen of the store treats the scanner's scans as its own (the behaviour before
// stations existed). Keyed by the store the scanners check in at and the device's stable identity.

/** The store the node's scanners serve. */
export interface ScannerStore {
  vendorId: number;
  storeId: number;
}

/** The stations assigned at the store, by device identity. */
export async function scannerStations(engine: Engine, store: ScannerStore): Promise<Map<string, ScannerStation>> {
  const rows = await engine.db
    .selectFrom('scanner_stations')
    .select(['device', 'station'])
    .where('vendor_id', '=', store.vendorId)
    .where('store_id', '=', store.storeId)
    .execute();
  return new Map(rows.map((r) => [r.device, r.station]));
}

/** The station of one device, null when not assigned. */
export async function scannerStationOf(engine: Engine, store: ScannerStore, device: string): Promise<ScannerStation | null> {
  const row = await engine.db
    .selectFrom('scanner_stations')
    .select('station')
    .where('vendor_id', '=', store.vendorId)
    .where('store_id', '=', store.storeId)
    .where('device', '=', device)
    .executeTakeFirst();
  return row?.station ?? null;
}

/** Assigns a device to a station, or (null) takes the assignment away. One statement. */
export async function assignScannerStation(engine: Engine, store: ScannerStore, device: string, station: ScannerStation | null): Promise<void> {
  if (station === null) {
    await engine.db.deleteFrom('scanner_stations').where('vendor_id', '=', store.vendorId).where('store_id', '=', store.storeId).where('device', '=', device).execute();
    return;
  }
  const now = engine.clock.now();
  await engine.db
    .insertInto('scanner_stations')
    .values({ vendor_id: store.vendorId, store_id: store.storeId, device, station, updated_at: now })
    .onConflict((oc) => oc.columns(['vendor_id', 'store_id', 'device']).doUpdateSet({ station, updated_at: now }))
    .execute();
}
