import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ScriptedScanSource } from '../../src/devices/scan-source';
import type { ScanOutcome } from '../../src/server/node/scanners';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { FakeHidBackend, HONEYWELL_POS } from '../devices/hid/fake-hid';
import { POS_DEMO0001 } from '../devices/hid/recordings';
import { type EventStream, openEventStream } from '../support/event-stream';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// Scanners assigned to stations (issue 17, item 5), over real HTTP on a real store node: a cashier key
// assigns each scanner the node reads to the counter or the kiosk (PUT /app/scanners/station), the
// node keeps it under the device's identity (a HID scanner re-plugged on another port, a restart),
// and every scan's session events carry the station so a kiosk greets only its own scanners.

const SERIAL = '18123B4567';

describe('scanner stations on a store node', () => {
  const dir = makeTempDir();
  const door = new ScriptedScanSource('door-scanner');
  const till = new ScriptedScanSource('till-scanner');
  const backend = new FakeHidBackend();
  let node: RunningNode;
  let vendor: VendorCredentials;
  let other: VendorCredentials;
  const streams: EventStream[] = [];
  const outcomes: ScanOutcome[] = [];

  const start = async () => {
    node = await startStoreNode({ dataDir: dir.path, port: 0, scanners: { hid: true, hidBackend: backend, rescanIntervalMs: 60_000, sources: [door, till] } });
    node.scanners!.on('check-in', (outcome: ScanOutcome) => outcomes.push(outcome));
  };
  const nextOutcome = async (): Promise<ScanOutcome> => {
    const deadline = Date.now() + 5_000;
    while (outcomes.length === 0) {
      if (Date.now() > deadline) throw new Error('no check-in outcome');
      await new Promise((r) => setTimeout(r, 5));
    }
    return outcomes.shift()!;
  };
  const events = async (): Promise<EventStream> => {
    const stream = await openEventStream(`${node.url}/app/events?api_key=${encodeURIComponent(vendor.kioskApiKey)}`);
    streams.push(stream);
    while (!stream.text().includes('\n\n')) await new Promise((r) => setTimeout(r, 5));
    return stream;
  };
  const list = async (key = vendor.apiKey) => {
    const reply = await http(`${node.url}/app/scanners?api_key=${encodeURIComponent(key)}`);
    expect(reply.status).toBe(200);
    return reply.body.scanners as any[];
  };
  const assign = (body: unknown, key = vendor.apiKey) => http(`${node.url}/app/scanners/station?api_key=${encodeURIComponent(key)}`, { method: 'PUT', body });
  /** The hashes of the queue as the store's kiosk key reads it: only whom a kiosk greets (kiosk-view). */
  const kioskQueue = async () => {
    const reply = await http(`${node.url}/onscreen/queue?api_key=${encodeURIComponent(vendor.kioskApiKey)}`);
    expect(reply.status).toBe(200);
    return (reply.body as any[]).map((e) => e.pos_session.hash);
  };
  const kioskRetrieves = async (hash: string) => (await http(`${node.url}/onscreen?api_key=${encodeURIComponent(vendor.kioskApiKey)}&pos_session_hash=${hash}`)).status;
  const stationsBy = async (field: 'id' | 'device') => Object.fromEntries((await list()).map((s) => [s[field], s.station]));

  beforeAll(async () => {
    backend.list = [{ ...HONEYWELL_POS, serialNumber: SERIAL }];
    await start();
    vendor = await setUpVendor(node.engine, { name: 'Door Cafe', currency: 'USD', country: 'US', store: { name: 'Door Store', address1: '1 Main St', city: 'Springfield' } });
    other = await setUpVendor(node.engine, { name: 'Other Shop', currency: 'USD', country: 'US', store: { name: 'Elsewhere', address1: '2 Side St', city: 'Springfield' } });
    const email = 'station.customer@example.com';
    await http(`${node.url}/user/register`, { method: 'POST', body: { first_name: 'Sol', last_name: 'Station', email_address: email, password: 'secret123', terms: true, vendor: vendor.vendorId } });
    const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: email, password: 'secret123', vendor: vendor.vendorId } });
    expect((await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: 'DEMO0001' } })).status).toBe(201);
    expect((await http(`${node.url}/user/card/add?session_key=${login.body.session_identifier}`, { method: 'POST', body: { number: 'DEMO0001' } })).status).toBe(200);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await node.close();
    dir.remove();
  });

  it('lists every scanner unassigned, with its device identity', async () => {
    expect(await list()).toEqual(
      expect.arrayContaining([
        { id: 'door-scanner', device: 'scripted:door-scanner', name: 'door-scanner', kind: 'barcode', mode: 'scripted', connected: true, last_scan_at: null, station: null },
        expect.objectContaining({ id: '/dev/hidraw3', device: `usb:0c2e:0b61:${SERIAL}`, mode: 'hid-pos', station: null }),
      ]),
    );
    expect(await list()).toHaveLength(3);
  });

  it('refuses kiosk keys, missing keys, unknown scanners, other stores and bad stations with clear codes', async () => {
    const kiosk = await assign({ scanner: 'door-scanner', station: 'kiosk' }, vendor.kioskApiKey);
    expect(kiosk.status).toBe(403);
    expect(kiosk.body.error.errors[0].reason).toBe('forbidden');
    expect((await http(`${node.url}/app/scanners/station`, { method: 'PUT', body: { scanner: 'door-scanner', station: 'kiosk' } })).status).toBe(401);
    const unknown = await assign({ scanner: '/dev/hidraw9', station: 'kiosk' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.errors[0].reason).toBe('scanner_not_found');
    // Another program's store is not the one these scanners serve: it sees none and assigns none.
    const elsewhere = await assign({ scanner: 'door-scanner', station: 'kiosk' }, other.apiKey);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.errors[0].reason).toBe('scanner_not_found');
    for (const body of [{ scanner: 'door-scanner', station: 'door' }, { scanner: 'door-scanner' }, { scanner: '', station: 'kiosk' }]) {
      const bad = await assign(body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.errors[0].reason).toBe('validation_failed');
    }
    expect(await stationsBy('id')).toEqual({ 'door-scanner': null, 'till-scanner': null, '/dev/hidraw3': null });
  });

  it('assigns by id or device identity; scans carry their scanner’s station in the event stream, and a kiosk key reads only what kiosk-station and unassigned scanners identified', async () => {
    const assigned = await assign({ scanner: 'door-scanner', station: 'kiosk' });
    expect(assigned.status).toBe(200);
    expect(assigned.body.scanner).toMatchObject({ id: 'door-scanner', device: 'scripted:door-scanner', station: 'kiosk' });
    expect((await assign({ scanner: `usb:0c2e:0b61:${SERIAL}`, station: 'counter' })).status).toBe(200);
    expect(await stationsBy('id')).toEqual({ 'door-scanner': 'kiosk', 'till-scanner': null, '/dev/hidraw3': 'counter' });

    const stream = await events();
    expect(door.scan('DEMO0001')).toBe(true);
    expect((await nextOutcome()).ok).toBe(true);
    expect((await stream.next()).data).toMatchObject({ type: 'session.opened', by: 'scanner', station: 'kiosk' });
    const [hash] = await kioskQueue();
    expect(await kioskRetrieves(hash!)).toBe(200);

    backend.opened.get('/dev/hidraw3')!.replay([POS_DEMO0001]);
    expect((await nextOutcome()).ok).toBe(true);
    expect((await stream.next()).data).toMatchObject({ type: 'session.updated', by: 'scanner', station: 'counter' });
    // identified at the counter now: the kiosk key no longer reads the session
    expect(await kioskQueue()).toEqual([]);
    expect(await kioskRetrieves(hash!)).toBe(404);

    // An unassigned scanner's events carry no station: every screen treats them as its own.
    till.scan('DEMO0001');
    expect((await nextOutcome()).ok).toBe(true);
    const unassigned = await stream.next();
    expect(unassigned.data).toMatchObject({ type: 'session.updated', by: 'scanner' });
    expect(unassigned.data).not.toHaveProperty('station');
    expect(await kioskQueue()).toEqual([hash]);

    // A code that finds nobody says which station's scanner read it.
    door.scan('NOBODY9999');
    expect(await nextOutcome()).toMatchObject({ ok: false, code: 'customer_not_found' });
    expect((await stream.next()).data).toMatchObject({ type: 'scan.rejected', by: 'scanner', station: 'kiosk', reason: 'customer_not_found' });

    // A check-in typed at the counter is not a scanner's: no station.
    const typed = await http(`${node.url}/onscreen?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'POST', body: { card_number: 'DEMO0001' } });
    expect(typed.status).toBe(201);
    const counter = await stream.next();
    expect(counter.data).toMatchObject({ type: 'session.updated', by: 'cashier' });
    expect(counter.data).not.toHaveProperty('station');
    expect(await kioskQueue()).toEqual([]);
    expect(await kioskRetrieves(hash!)).toBe(404);
  });

  it('keeps stations across a restart and a re-plug on another port; null takes one away', async () => {
    await node.close();
    // The scanner comes back on another hidraw node: same serial number, same station.
    backend.list = [{ ...HONEYWELL_POS, path: '/dev/hidraw8', serialNumber: SERIAL }];
    await start();
    expect(await stationsBy('id')).toEqual({ 'door-scanner': 'kiosk', 'till-scanner': null, '/dev/hidraw8': 'counter' });

    const stream = await events();
    backend.opened.get('/dev/hidraw8')!.replay([POS_DEMO0001]);
    expect((await nextOutcome()).ok).toBe(true);
    expect((await stream.next()).data).toMatchObject({ by: 'scanner', station: 'counter' });

    const cleared = await assign({ scanner: 'door-scanner', station: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.scanner.station).toBeNull();
    expect(await stationsBy('device')).toEqual({ 'scripted:door-scanner': null, 'scripted:till-scanner': null, [`usb:0c2e:0b61:${SERIAL}`]: 'counter' });
  });
});
