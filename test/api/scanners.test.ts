import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ScriptedScanSource } from '../../src/devices/scan-source';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import type { ScanOutcome } from '../../src/server/node/scanners';
import { FakeHidBackend, HONEYWELL_POS, MAGTEK_KEYBOARD } from '../devices/hid/fake-hid';
import { POS_DEMO0001, SWIPE_12345674, SWIPE_BAD_LUHN } from '../devices/hid/recordings';
import { openEventStream, type EventStream } from '../support/event-stream';
import { http, startTestNode } from '../support/test-node';
import { makeTempDir } from '../support/temp-dir';

// A real store node (`punchcard store` code) reading a scripted source and HID devices behind a fake
// node-hid: a scan from any of them checks the customer in at the node's store, the event stream
// tells the screens, and GET /app/scanners lists the devices for the store's keys only.

describe('scanners of a store node', () => {
  const dir = makeTempDir();
  const scripted = new ScriptedScanSource('demo-scanner');
  const backend = new FakeHidBackend();
  const logLines: string[] = [];
  let node: RunningNode;
  let vendor: VendorCredentials;
  let other: VendorCredentials;
  const streams: EventStream[] = [];

  const outcomes: ScanOutcome[] = [];
  const nextOutcome = async (): Promise<ScanOutcome> => {
    const deadline = Date.now() + 5_000;
    while (outcomes.length === 0) {
      if (Date.now() > deadline) throw new Error('no check-in outcome');
      await new Promise((r) => setTimeout(r, 5));
    }
    return outcomes.shift()!;
  };

  async function events(apiKey: string): Promise<EventStream> {
    const stream = await openEventStream(`${node.url}/app/events?api_key=${encodeURIComponent(apiKey)}`);
    streams.push(stream);
    expect(stream.response.status).toBe(200);
    while (!stream.text().includes('\n\n')) await new Promise((r) => setTimeout(r, 5));
    return stream;
  }

  beforeAll(async () => {
    backend.list = [HONEYWELL_POS];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    node = await startStoreNode({
      dataDir: dir.path,
      port: 0,
      logger: pino({ level: 'info' }, sink),
      scanners: { hid: true, hidBackend: backend, rescanIntervalMs: 60_000, sources: [scripted] },
    });
    node.scanners!.on('check-in', (outcome: ScanOutcome) => outcomes.push(outcome));
    // The node started before it had any store (like the desktop's first run): scanners find it when needed.
    vendor = await setUpVendor(node.engine, { name: 'Cafe Scan', currency: 'USD', country: 'US', store: { name: 'Counter Store', address1: '1 Main St', city: 'Springfield' } });
    other = await setUpVendor(node.engine, { name: 'Other Shop', currency: 'USD', country: 'US', store: { name: 'Elsewhere', address1: '2 Side St', city: 'Springfield' } });
    const email = 'scanner.customer@example.com';
    await http(`${node.url}/user/register`, { method: 'POST', body: { first_name: 'Hana', last_name: 'Hid', email_address: email, password: 'secret123', terms: true, vendor: vendor.vendorId } });
    const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: email, password: 'secret123', vendor: vendor.vendorId } });
    for (const number of ['DEMO0001', '12345674']) {
      expect((await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number } })).status).toBe(201);
      expect((await http(`${node.url}/user/card/add?session_key=${login.body.session_identifier}`, { method: 'POST', body: { number } })).status).toBe(200);
    }
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await node.close();
    dir.remove();
  });

  it('lists the scripted source and the HID scanner for the store the scanners serve', async () => {
    const reply = await http(`${node.url}/app/scanners?api_key=${vendor.apiKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body.scanners).toEqual(
      expect.arrayContaining([
        { id: 'demo-scanner', device: 'scripted:demo-scanner', name: 'demo-scanner', kind: 'barcode', mode: 'scripted', connected: true, last_scan_at: null, station: null },
        {
          id: '/dev/hidraw3',
          device: 'usb:0c2e:0b61@/dev/hidraw3',
          name: 'Honeywell Imaging & Mobility 1900',
          kind: 'barcode',
          mode: 'hid-pos',
          connected: true,
          last_scan_at: null,
          station: null,
        },
      ]),
    );
    expect(reply.body.scanners).toHaveLength(2);
  });

  it('shows another vendor nothing, and needs a key', async () => {
    expect((await http(`${node.url}/app/scanners?api_key=${other.apiKey}`)).body).toEqual({ scanners: [] });
    expect((await http(`${node.url}/app/scanners`)).status).toBe(401);
  });

  it('a scripted scan checks the customer in and the store event stream says so', async () => {
    const stream = await events(vendor.apiKey);
    expect(scripted.scan('DEMO0001', 'barcode', ']C0')).toBe(true);
    const event = await stream.next();
    expect(event.event).toBe('session.opened');
    // `by: scanner` tells screens it was a device the node reads (a kiosk greets those, not counter check-ins).
    expect(event.data).toMatchObject({ type: 'session.opened', vendor_id: vendor.vendorId, store_id: vendor.storeId, by: 'scanner' });
    expect(await nextOutcome()).toEqual({ ok: true, source: 'demo-scanner', masked: '****0001', sessionId: event.data.pos_session_id });

    const queue = await http(`${node.url}/onscreen/queue?api_key=${vendor.apiKey}`);
    expect(queue.body.map((e: any) => e.pos_session.user.first_name)).toEqual(['Hana']);
    const listed = await http(`${node.url}/app/scanners?api_key=${vendor.apiKey}`);
    expect(listed.body.scanners.find((s: any) => s.id === 'demo-scanner').last_scan_at).toEqual(expect.any(Number));
  });

  it('a HID POS report and a card reader plugged in later check in too, logged masked only', async () => {
    const stream = await events(vendor.apiKey);
    backend.opened.get('/dev/hidraw3')!.replay([POS_DEMO0001]);
    expect((await stream.next()).event).toBe('session.updated'); // same customer: same session
    expect(await nextOutcome()).toMatchObject({ ok: true, source: '/dev/hidraw3' });

    backend.list = [HONEYWELL_POS, MAGTEK_KEYBOARD];
    await node.scanners!.hidManager?.rescan();
    const listed = await http(`${node.url}/app/scanners?api_key=${vendor.apiKey}`);
    expect(listed.body.scanners.map((s: any) => `${s.id} ${s.kind} ${s.mode}`)).toContain('/dev/hidraw4 card keyboard-emulation');

    backend.opened.get('/dev/hidraw4')!.replay(SWIPE_12345674);
    expect((await stream.next()).event).toBe('session.updated');
    expect(await nextOutcome()).toEqual({ ok: true, source: '/dev/hidraw4', masked: '****5674', sessionId: expect.any(Number) });
    const logs = logLines.join('');
    expect(logs).toContain('****5674');
    expect(logs).not.toContain('12345674');
  });

  it('an unplugged scanner leaves the list; an unknown code checks nobody in', async () => {
    backend.list = [MAGTEK_KEYBOARD];
    await node.scanners!.hidManager?.rescan();
    const listed = await http(`${node.url}/app/scanners?api_key=${vendor.apiKey}`);
    expect(listed.body.scanners.map((s: any) => s.id).sort()).toEqual(['/dev/hidraw4', 'demo-scanner']);

    const stream = await events(vendor.kioskApiKey);
    scripted.scan('NOBODY9999');
    expect(await nextOutcome()).toEqual({ ok: false, source: 'demo-scanner', masked: '******9999', code: 'customer_not_found' });
    expect(logLines.join('')).not.toContain('NOBODY9999');
    // The store's screens hear of it (the kiosk's retry screen), without the value.
    const rejected = await stream.next();
    expect(rejected.event).toBe('scan.rejected');
    expect(rejected.data).toMatchObject({ type: 'scan.rejected', store_id: vendor.storeId, pos_session_id: null, by: 'scanner', reason: 'customer_not_found' });
    expect(JSON.stringify(rejected.data)).not.toContain('9999');

    // A card reader's garbled swipe (bad Luhn) is announced too, so a kiosk asks to swipe again.
    backend.opened.get('/dev/hidraw4')!.replay(SWIPE_BAD_LUHN);
    const unreadable = await stream.next();
    expect(unreadable.event).toBe('scan.rejected');
    expect(unreadable.data).toMatchObject({ type: 'scan.rejected', store_id: vendor.storeId, pos_session_id: null, by: 'scanner', reason: 'unreadable_scan' });
  });
});

describe('GET /app/scanners on a node that reads no scanners', () => {
  it('answers an empty list', async () => {
    const node = await startTestNode();
    try {
      const vendor = await node.addVendor();
      expect((await http(`${node.url}/app/scanners?api_key=${vendor.kioskApiKey}`)).body).toEqual({ scanners: [] });
    } finally {
      await node.close();
    }
  });
});

describe('punchcard store --scanners hid', () => {
  it('maps the flags (and PUNCHCARD_SCANNER_KEY) to the store node option', async () => {
    const { scannerOptionsFrom } = await import('../../src/server/cli/scanner-options');
    const { DEFAULT_KEYBOARD_DEVICES } = await import('../../src/devices/hid');
    expect(scannerOptionsFrom({}, {})).toBeUndefined();
    expect(scannerOptionsFrom({ scanners: 'hid' }, {})).toEqual({ hid: true });
    expect(scannerOptionsFrom({ scanners: 'hid', scannerStore: 12, scannerKeyboard: ['05e0:1200:barcode'] }, { PUNCHCARD_SCANNER_KEY: 'pcak_x' })).toEqual({
      hid: true,
      apiKey: 'pcak_x',
      storeId: 12,
      keyboardDevices: [...DEFAULT_KEYBOARD_DEVICES, { vendorId: 0x05e0, productId: 0x1200, kind: 'barcode' }],
    });
  });
});
