import { describe, expect, it } from 'vitest';
import { classifyDevice, classifyDevices, deviceIdentity } from '../../../src/devices/hid/classify';
import { HONEYWELL_POS, MAGTEK_KEYBOARD, OFFICE_KEYBOARD } from './fake-hid';

// Which enumerated devices are read, and how: HID POS by usage page; keyboard-emulation readers only
// when listed (MagTek and ID TECH by default); ordinary keyboards never.

describe('classifying HID devices', () => {
  it('reads any usage page 0x8C collection as a HID POS barcode scanner', () => {
    expect(classifyDevice(HONEYWELL_POS)).toEqual({
      use: true,
      path: '/dev/hidraw3',
      description: { name: 'Honeywell Imaging & Mobility 1900', device: 'usb:0c2e:0b61@/dev/hidraw3', kind: 'barcode', mode: 'hid-pos' },
    });
  });

  it("names a device by vendor, product and serial number, or by its port when it has no serial", () => {
    expect(deviceIdentity({ ...HONEYWELL_POS, serialNumber: ' 18123B4567 ' })).toBe('usb:0c2e:0b61:18123B4567');
    // Re-plugged on another hidraw node: the same identity, so its station holds.
    expect(deviceIdentity({ ...HONEYWELL_POS, path: '/dev/hidraw8', serialNumber: '18123B4567' })).toBe('usb:0c2e:0b61:18123B4567');
    // Two identical scanners without serial numbers are still two devices.
    expect(deviceIdentity(HONEYWELL_POS)).toBe('usb:0c2e:0b61@/dev/hidraw3');
    expect(deviceIdentity({ ...HONEYWELL_POS, path: '/dev/hidraw4', serialNumber: '' })).toBe('usb:0c2e:0b61@/dev/hidraw4');
    expect(classifyDevice({ ...MAGTEK_KEYBOARD, serialNumber: 'B0A1' })).toMatchObject({ description: { device: 'usb:0801:0001:B0A1' } });
  });

  it('reads MagTek and ID TECH keyboards as card readers, and leaves other keyboards alone', () => {
    expect(classifyDevice(MAGTEK_KEYBOARD)).toMatchObject({ use: true, description: { kind: 'card', mode: 'keyboard-emulation' } });
    expect(classifyDevice({ ...MAGTEK_KEYBOARD, vendorId: 0x0acd, manufacturer: undefined, product: undefined })).toMatchObject({
      use: true,
      description: { name: 'HID device 0x0acd:0x0001', kind: 'card' },
    });
    expect(classifyDevice(OFFICE_KEYBOARD)).toBeNull();
  });

  it('reads a keyboard-mode scanner only when configured', () => {
    const zebraKeyboard = { ...OFFICE_KEYBOARD, vendorId: 0x05e0, productId: 0x1200, path: '/dev/hidraw7' };
    expect(classifyDevice(zebraKeyboard)).toBeNull();
    expect(classifyDevice(zebraKeyboard, [{ vendorId: 0x05e0, productId: 0x1200, kind: 'barcode' }])).toMatchObject({
      use: true,
      description: { kind: 'barcode', mode: 'keyboard-emulation' },
    });
    expect(classifyDevice(zebraKeyboard, [{ vendorId: 0x05e0, productId: 0x9999, kind: 'barcode' }])).toBeNull();
  });

  it('explains a card reader in vendor HID data mode instead of reading it', () => {
    expect(classifyDevice({ ...MAGTEK_KEYBOARD, usagePage: 0xff00, usage: 0x01 })).toEqual({
      use: false,
      path: '/dev/hidraw4',
      reason: expect.stringContaining('HID data mode'),
    });
  });

  it('ignores entries without a path, and keeps one entry per path preferring HID POS', () => {
    expect(classifyDevice({ ...HONEYWELL_POS, path: undefined })).toBeNull();
    const composite = [{ ...HONEYWELL_POS, usagePage: 0x01, usage: 0x06, vendorId: 0x0801 }, HONEYWELL_POS];
    expect(classifyDevices(composite)).toEqual([expect.objectContaining({ path: '/dev/hidraw3', description: expect.objectContaining({ mode: 'hid-pos' }) })]);
  });
});

describe('keyboard device rules from the command line', () => {
  it('reads vendor, optional product and kind in hex', async () => {
    const { parseKeyboardDeviceRule } = await import('../../../src/devices/hid/classify');
    expect(parseKeyboardDeviceRule('05e0:1200:barcode')).toEqual({ vendorId: 0x05e0, productId: 0x1200, kind: 'barcode' });
    expect(parseKeyboardDeviceRule('0x0801')).toEqual({ vendorId: 0x0801, kind: 'card' });
    expect(parseKeyboardDeviceRule('0c2e:card')).toEqual({ vendorId: 0x0c2e, kind: 'card' });
    expect(() => parseKeyboardDeviceRule('honeywell')).toThrow(/VENDOR\[:PRODUCT\]/);
    expect(() => parseKeyboardDeviceRule('12345:1')).toThrow();
  });
});
