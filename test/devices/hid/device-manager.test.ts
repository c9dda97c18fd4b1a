import { afterEach, describe, expect, it } from 'vitest';
import { HidDeviceManager } from '../../../src/devices/hid/device-manager';
import type { HidScanSource } from '../../../src/devices/hid/hid-scan-source';
import type { ScanEvent } from '../../../src/devices/scan-source';
import { FakeHidBackend, HONEYWELL_POS, MAGTEK_KEYBOARD, OFFICE_KEYBOARD } from './fake-hid';
import { POS_DEMO0001, SWIPE_12345674 } from './recordings';

// Hot-plug without node-hid events: each pass enumerates the (fake) backend again, opens what
// appeared, closes what vanished, and drops a device that errors — without a restart.

function manager(backend: FakeHidBackend) {
  const warnings: string[] = [];
  const m = new HidDeviceManager({
    backend,
    intervalMs: 60_000, // passes are driven by the test
    logger: { info: () => {}, warn: (_fields, message) => warnings.push(message) },
  });
  const added: string[] = [];
  const removed: string[] = [];
  const scans: ScanEvent[] = [];
  m.on('added', (source: HidScanSource) => {
    added.push(source.id);
    source.on('scan', (scan) => scans.push(scan));
  });
  m.on('removed', (source: HidScanSource) => removed.push(source.id));
  return { m, added, removed, scans, warnings };
}

let running: HidDeviceManager | null = null;
afterEach(async () => {
  await running?.stop();
  running = null;
});

describe('HID device manager', () => {
  it('opens scanners and card readers found at start, and never a plain keyboard', async () => {
    const backend = new FakeHidBackend();
    backend.list = [HONEYWELL_POS, MAGTEK_KEYBOARD, OFFICE_KEYBOARD];
    const { m, added, scans } = manager(backend);
    running = m;
    await m.start();
    expect(added.sort()).toEqual(['/dev/hidraw3', '/dev/hidraw4']);
    expect([...backend.opened.keys()]).not.toContain('/dev/hidraw0');
    expect(m.sources().map((s) => s.description.mode).sort()).toEqual(['hid-pos', 'keyboard-emulation']);

    backend.opened.get('/dev/hidraw3')!.replay([POS_DEMO0001]);
    backend.opened.get('/dev/hidraw4')!.replay(SWIPE_12345674);
    expect(scans.map((s) => [s.kind, s.value, s.source])).toEqual([
      ['barcode', 'DEMO0001', '/dev/hidraw3'],
      ['card', '12345674', '/dev/hidraw4'],
    ]);
  });

  it('picks up a device plugged in later and closes one that was unplugged', async () => {
    const backend = new FakeHidBackend();
    const { m, added, removed } = manager(backend);
    running = m;
    await m.start();
    expect(added).toEqual([]);

    backend.list = [HONEYWELL_POS];
    await m.rescan();
    expect(added).toEqual(['/dev/hidraw3']);
    await m.rescan();
    expect(added).toEqual(['/dev/hidraw3']); // still there: not opened twice

    const first = backend.opened.get('/dev/hidraw3')!;
    backend.list = [];
    await m.rescan();
    expect(removed).toEqual(['/dev/hidraw3']);
    expect(first.closed).toBe(true);
    expect(m.sources()).toEqual([]);

    backend.list = [HONEYWELL_POS];
    await m.rescan();
    expect(added).toEqual(['/dev/hidraw3', '/dev/hidraw3']);
    expect(backend.opened.get('/dev/hidraw3')).not.toBe(first);
  });

  it('drops a device that errors at once, and reopens it on a later pass if still present', async () => {
    const backend = new FakeHidBackend();
    backend.list = [HONEYWELL_POS];
    const { m, added, removed } = manager(backend);
    running = m;
    await m.start();
    backend.opened.get('/dev/hidraw3')!.fail();
    expect(removed).toEqual(['/dev/hidraw3']);
    expect(m.sources()).toEqual([]);
    await m.rescan();
    expect(added).toEqual(['/dev/hidraw3', '/dev/hidraw3']);
  });

  it('logs a device it cannot open once, keeps the others, and opens it when allowed', async () => {
    const backend = new FakeHidBackend();
    backend.list = [HONEYWELL_POS, MAGTEK_KEYBOARD];
    backend.refuse.add('/dev/hidraw4');
    const { m, added, warnings } = manager(backend);
    running = m;
    await m.start();
    await m.rescan();
    await m.rescan();
    expect(added).toEqual(['/dev/hidraw3']);
    expect(warnings.filter((w) => w.includes('cannot be opened'))).toHaveLength(1);
    backend.refuse.clear();
    await m.rescan();
    expect(added).toEqual(['/dev/hidraw3', '/dev/hidraw4']);
  });

  it('survives enumeration failures (no libusb) and recovers when listing works again', async () => {
    const backend = new FakeHidBackend();
    backend.enumerationError = new Error('libusb-1.0.so.0: cannot open shared object file');
    const { m, added, warnings } = manager(backend);
    running = m;
    await expect(m.start()).resolves.toBeUndefined();
    await m.rescan();
    expect(warnings).toEqual([expect.stringContaining('libusb-1.0.so.0')]);
    backend.enumerationError = null;
    backend.list = [HONEYWELL_POS];
    await m.rescan();
    expect(added).toEqual(['/dev/hidraw3']);
  });

  it('stop closes every device and later passes open nothing', async () => {
    const backend = new FakeHidBackend();
    backend.list = [HONEYWELL_POS, MAGTEK_KEYBOARD];
    const { m, added } = manager(backend);
    await m.start();
    await m.stop();
    expect([...backend.opened.values()].every((d) => d.closed)).toBe(true);
    await m.rescan();
    expect(added).toHaveLength(2);
    expect(m.sources()).toEqual([]);
  });

  it('re-enumerates on its own every interval', async () => {
    const backend = new FakeHidBackend();
    const m = new HidDeviceManager({ backend, intervalMs: 20 });
    running = m;
    await m.start();
    backend.list = [HONEYWELL_POS];
    const deadline = Date.now() + 2_000;
    while (m.sources().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(m.sources().map((s) => s.id)).toEqual(['/dev/hidraw3']);
  });
});
