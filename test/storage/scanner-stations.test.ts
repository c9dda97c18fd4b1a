import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { assignScannerStation, scannerStationOf, scannerStations } from '../../src/core/scanner-stations/scanner-stations';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// Scanner stations (issue 17, item 5) are kept the same on SQLite and PostgreSQL: assigned per store
// and device identity, changed in place, taken away with null, and never seen by another store.

describe.each(BACKENDS)('scanner stations on $name', (backend) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function engine(): Promise<Engine> {
    const opened = await openEngine(backend, new ManualClock());
    close = opened.close;
    return opened.engine;
  }

  it('assigns, reassigns and clears a station per store and device', async () => {
    const e = await engine();
    const a = await setUpVendor(e, testVendor('Station A'));
    const b = await setUpVendor(e, testVendor('Station B'));
    const storeA = { vendorId: a.vendorId, storeId: a.storeId };
    const storeB = { vendorId: b.vendorId, storeId: b.storeId };
    const door = 'usb:0c2e:0b61:18123B4567';
    const till = 'usb:0c2e:0b61@/dev/hidraw4';

    expect(await scannerStationOf(e, storeA, door)).toBeNull();
    await assignScannerStation(e, storeA, door, 'kiosk');
    await assignScannerStation(e, storeA, till, 'counter');
    await assignScannerStation(e, storeB, door, 'counter');
    expect(await scannerStationOf(e, storeA, door)).toBe('kiosk');
    expect(await scannerStations(e, storeA)).toEqual(new Map([[door, 'kiosk'], [till, 'counter']]));
    expect(await scannerStations(e, storeB)).toEqual(new Map([[door, 'counter']]));

    // Reassigning changes the row in place; null takes the assignment away (twice is harmless).
    await assignScannerStation(e, storeA, door, 'counter');
    expect(await scannerStationOf(e, storeA, door)).toBe('counter');
    await assignScannerStation(e, storeA, door, null);
    await assignScannerStation(e, storeA, door, null);
    expect(await scannerStationOf(e, storeA, door)).toBeNull();
    expect(await scannerStations(e, storeA)).toEqual(new Map([[till, 'counter']]));
    expect(await scannerStationOf(e, storeB, door)).toBe('counter');
  });
});
