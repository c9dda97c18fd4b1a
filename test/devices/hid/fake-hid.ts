import { EventEmitter } from 'node:events';
import type { HidBackend, HidDevice, HidDeviceInfo } from '../../../src/devices/hid/hid-device';

// Stand-ins for node-hid behind the HidDevice seam: a device that replays recorded input reports
// as 'data' Buffers (as node-hid's HID class emits them), and a backend whose device list a test
// changes to plug and unplug devices.

export class FakeHidDevice extends EventEmitter implements HidDevice {
  closed = false;

  constructor(readonly path: string) {
    super();
  }

  /** Delivers recorded reports, each as node-hid would: a Buffer. */
  replay(reports: readonly Uint8Array[]): void {
    for (const report of reports) this.emit('data', Buffer.from(report));
  }

  /** A read failure, as node-hid reports an unplugged device. */
  fail(message = 'could not read from HID device'): void {
    this.emit('error', new Error(message));
  }

  close(): void {
    this.closed = true;
  }
}

export class FakeHidBackend implements HidBackend {
  list: HidDeviceInfo[] = [];
  readonly opened = new Map<string, FakeHidDevice>();
  /** Paths whose open throws (e.g. no udev rule: permission denied). */
  readonly refuse = new Set<string>();
  /** Set to make enumeration fail (e.g. libusb missing). */
  enumerationError: Error | null = null;

  async devices(): Promise<HidDeviceInfo[]> {
    if (this.enumerationError) throw this.enumerationError;
    return this.list.map((info) => ({ ...info }));
  }

  open(path: string): FakeHidDevice {
    if (this.refuse.has(path)) throw new Error(`cannot open device with path ${path}`);
    const device = new FakeHidDevice(path);
    this.opened.set(path, device);
    return device;
  }
}

export const HONEYWELL_POS: HidDeviceInfo = {
  vendorId: 0x0c2e,
  productId: 0x0b61,
  path: '/dev/hidraw3',
  manufacturer: 'Honeywell Imaging & Mobility',
  product: '1900',
  usagePage: 0x8c,
  usage: 0x02,
};

export const MAGTEK_KEYBOARD: HidDeviceInfo = {
  vendorId: 0x0801,
  productId: 0x0001,
  path: '/dev/hidraw4',
  manufacturer: 'Mag-Tek',
  product: 'USB Swipe Reader',
  usagePage: 0x01,
  usage: 0x06,
};

export const OFFICE_KEYBOARD: HidDeviceInfo = {
  vendorId: 0x046d,
  productId: 0xc31c,
  path: '/dev/hidraw0',
  manufacturer: 'Logitech',
  product: 'USB Keyboard',
  usagePage: 0x01,
  usage: 0x06,
};
