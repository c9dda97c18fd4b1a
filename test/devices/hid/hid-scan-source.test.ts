import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HidScanSource } from '../../../src/devices/hid/hid-scan-source';
import type { ScanLogger } from '../../../src/devices/hid/hid-device';
import { HidPosReportDecoder, KeyboardReportDecoder } from '../../../src/devices/hid/report-decoders';
import type { ScanEvent, ScanReject } from '../../../src/devices/scan-source';
import { hex } from '../decoders/hex';
import { FakeHidDevice } from './fake-hid';
import { POS_DEMO0001, POS_LONG_1, POS_LONG_2, POS_LONG_TEXT, POS_TRUNCATED, SWIPE_12345674, SWIPE_BAD_LUHN } from './recordings';

// HID sources over a fake device replaying recorded reports: scans come out normalised, bad
// reports come out as rejects with a reason, and nothing read ever reaches a log unmasked.

function recordingLogger() {
  const lines: string[] = [];
  const logger: ScanLogger = {
    info: (fields, message) => lines.push(JSON.stringify({ ...fields, message })),
    warn: (fields, message) => lines.push(JSON.stringify({ ...fields, message })),
  };
  return { logger, lines };
}

function source(mode: 'hid-pos' | 'keyboard-emulation', gapTimeoutMs = 500) {
  const device = new FakeHidDevice('/dev/hidraw9');
  const { logger, lines } = recordingLogger();
  const src = new HidScanSource({
    id: device.path,
    description: { name: 'Test scanner', device: 'usb:0c2e:0b61@/dev/hidraw9', kind: mode === 'hid-pos' ? 'barcode' : 'card', mode },
    device,
    decoder: mode === 'hid-pos' ? new HidPosReportDecoder(gapTimeoutMs) : new KeyboardReportDecoder(gapTimeoutMs),
    logger,
  });
  const scans: ScanEvent[] = [];
  const rejects: ScanReject[] = [];
  src.on('scan', (scan) => scans.push(scan));
  src.on('reject', (r) => rejects.push(r));
  return { device, src, scans, rejects, lines };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_800_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('HID POS scanner source', () => {
  it('turns a recorded report into a barcode scan with its AIM symbology', () => {
    const { device, src, scans, rejects } = source('hid-pos');
    src.start();
    device.replay([POS_DEMO0001]);
    expect(scans).toEqual([{ kind: 'barcode', value: 'DEMO0001', symbology: ']C0', source: '/dev/hidraw9', at: 1_800_000_000_000 }]);
    expect(rejects).toEqual([]);
    expect(src.lastScanAt).toBe(1_800_000_000_000);
  });

  it('joins a barcode spread over two reports', () => {
    const { device, src, scans } = source('hid-pos');
    src.start();
    device.replay([POS_LONG_1]);
    expect(scans).toEqual([]);
    device.replay([POS_LONG_2]);
    expect(scans.map((s) => s.value)).toEqual([POS_LONG_TEXT]);
  });

  it('rejects a truncated report clearly, drops what may be its tail, and reads the next scan', () => {
    const { device, src, scans, rejects } = source('hid-pos');
    src.start();
    device.replay([POS_TRUNCATED, POS_LONG_2]);
    expect(rejects).toEqual([{ source: '/dev/hidraw9', code: 'truncated', reason: expect.stringContaining('truncated'), at: 1_800_000_000_000 }]);
    expect(scans).toEqual([]);
    device.replay([POS_DEMO0001]);
    expect(scans.map((s) => s.value)).toEqual(['DEMO0001']);
  });

  it('reports a barcode cut off mid-way once the gap has passed, without waiting for another report', () => {
    const { device, src, scans, rejects } = source('hid-pos', 300);
    src.start();
    device.replay([POS_LONG_1]);
    vi.advanceTimersByTime(299);
    expect(rejects).toEqual([]);
    vi.advanceTimersByTime(5);
    expect(rejects.map((r) => r.code)).toEqual(['timeout']);
    expect(scans).toEqual([]);
  });

  it('survives garbage: empty, oversized, wrong report id, random bytes, a non-buffer', () => {
    const { device, src, scans, rejects } = source('hid-pos');
    src.start();
    const garbage = [hex(''), new Uint8Array(200).fill(0xff), hex('05 01 02 03'), Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff)];
    expect(() => device.replay(garbage)).not.toThrow();
    expect(() => device.emit('data', 'not bytes')).not.toThrow();
    expect(rejects.length).toBe(5);
    expect(rejects.map((r) => r.code)).toContain('not_bytes');
    device.replay([POS_DEMO0001]);
    expect(scans.map((s) => s.value)).toEqual(['DEMO0001']);
  });

  it('emits nothing before start and after stop, and closes the device on stop', () => {
    const { device, src, scans } = source('hid-pos');
    device.replay([POS_DEMO0001]);
    src.start();
    expect(src.connected).toBe(true);
    src.stop();
    device.replay([POS_DEMO0001]);
    expect(scans).toEqual([]);
    expect(device.closed).toBe(true);
    expect(src.connected).toBe(false);
  });

  it('on a device error closes the device and says it is lost', () => {
    const { device, src } = source('hid-pos');
    const lost: string[] = [];
    src.on('lost', (message: string) => lost.push(message));
    src.start();
    device.fail('could not read from HID device');
    expect(lost).toEqual(['could not read from HID device']);
    expect(device.closed).toBe(true);
    expect(src.connected).toBe(false);
  });
});

describe('HID card reader source (keyboard emulation over hidraw)', () => {
  it('turns a recorded swipe into a card scan of its number, logging it masked only', () => {
    const { device, src, scans, rejects, lines } = source('keyboard-emulation');
    src.start();
    device.replay(SWIPE_12345674);
    expect(rejects).toEqual([]);
    expect(scans).toEqual([{ kind: 'card', value: '12345674', source: '/dev/hidraw9', at: 1_800_000_000_000 }]);
    const log = lines.join('\n');
    expect(log).toContain('****5674');
    expect(log).not.toContain('12345674');
    expect(log).not.toContain(';');
  });

  it('rejects a swipe failing the Luhn check without logging the number', () => {
    const { device, src, scans, rejects, lines } = source('keyboard-emulation');
    src.start();
    device.replay(SWIPE_BAD_LUHN);
    expect(scans).toEqual([]);
    expect(rejects.map((r) => r.code)).toEqual(['bad_luhn']);
    expect(lines.join('\n')).not.toMatch(/1234567/);
  });

  it('rejects a partial swipe (the reader stopped before Enter) after the gap', () => {
    const { device, src, scans, rejects } = source('keyboard-emulation', 200);
    src.start();
    device.replay(SWIPE_12345674.slice(0, 9));
    vi.advanceTimersByTime(250);
    expect(rejects.map((r) => r.code)).toEqual(['timeout']);
    device.replay(SWIPE_12345674);
    expect(scans.map((s) => s.value)).toEqual(['12345674']);
  });

  it('reads 8-byte reports of a reader without report ids too', () => {
    const { device, src, scans } = source('keyboard-emulation');
    src.start();
    device.replay(SWIPE_12345674.map((report) => report.subarray(1)));
    expect(scans.map((s) => s.value)).toEqual(['12345674']);
  });
});
