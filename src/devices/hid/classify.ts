import type { ScannerDescription } from '../scan-source';
import { type HidDeviceInfo, hex4 } from './hid-device';

// Which enumerated HID devices are scanners, and how to read them. Pure: tested on device lists.

/** HID Point of Sale: Bar Code Scanner page. */
export const USAGE_PAGE_BARCODE_SCANNER = 0x8c;
const USAGE_PAGE_GENERIC_DESKTOP = 0x01;
const USAGE_KEYBOARD = 0x06;
/** Vendor-defined pages (0xFF00–0xFFFF): MagTek/ID TECH "HID data" mode lives here. */
const VENDOR_PAGE_FIRST = 0xff00;

/** A device read in keyboard emulation, identified by vendor (and product, when given). */
export interface KeyboardDeviceRule {
  vendorId: number;
  productId?: number;
  kind: ScannerDescription['kind'];
}

export const MAGTEK_VENDOR_ID = 0x0801;
export const IDTECH_VENDOR_ID = 0x0acd;

/**
 * Keyboards are never read unless listed: a keyboard-emulation device is a keyboard to the OS.
 * By default only card readers of the common MSR makers are read this way (their swipes are decoded
 * from raw reports with a fixed layout, so the OS keyboard layout cannot garble `%`, `^`, `;`, `?`).
 * A barcode scanner left in keyboard mode is captured by the renderer's wedge capture instead.
 */
export const DEFAULT_KEYBOARD_DEVICES: readonly KeyboardDeviceRule[] = [
  { vendorId: MAGTEK_VENDOR_ID, kind: 'card' },
  { vendorId: IDTECH_VENDOR_ID, kind: 'card' },
];

export type Classification =
  | { use: true; path: string; description: ScannerDescription }
  /** Recognised but not readable here; the manager logs the reason once per device. */
  | { use: false; path: string; reason: string };

/** A display name: the device's own strings, or its ids. */
export function deviceName(info: HidDeviceInfo): string {
  const name = [info.manufacturer, info.product].map((part) => part?.trim()).filter(Boolean).join(' ');
  return name || `HID device ${hex4(info.vendorId)}:${hex4(info.productId)}`;
}

/**
 * The device's identity across re-plugs and restarts, which the node keeps its station under:
 * vendor, product and serial number (`usb:0c2e:0db1:18123B4567`); a device reporting no serial
 * number adds its OS path instead (`usb:0c2e:0db1@/dev/hidraw3`), so its assignment holds while it
 * stays on that port — two identical unserialised scanners are still told apart.
 */
export function deviceIdentity(info: HidDeviceInfo): string {
  const ids = `usb:${info.vendorId.toString(16).padStart(4, '0')}:${info.productId.toString(16).padStart(4, '0')}`;
  const serial = info.serialNumber?.trim();
  return serial ? `${ids}:${serial}` : `${ids}@${info.path ?? ''}`;
}

function matches(rule: KeyboardDeviceRule, info: HidDeviceInfo): boolean {
  return rule.vendorId === info.vendorId && (rule.productId === undefined || rule.productId === info.productId);
}

/** One enumerated collection: a scanner to read, a device to explain away, or null (not ours). */
export function classifyDevice(info: HidDeviceInfo, keyboardDevices: readonly KeyboardDeviceRule[] = DEFAULT_KEYBOARD_DEVICES): Classification | null {
  if (!info.path) return null;
  const name = deviceName(info);
  if (info.usagePage === USAGE_PAGE_BARCODE_SCANNER) {
    return { use: true, path: info.path, description: { name, device: deviceIdentity(info), kind: 'barcode', mode: 'hid-pos' } };
  }
  const rule = keyboardDevices.find((candidate) => matches(candidate, info));
  if (!rule) return null;
  if (info.usagePage === USAGE_PAGE_GENERIC_DESKTOP && info.usage === USAGE_KEYBOARD) {
    return { use: true, path: info.path, description: { name, device: deviceIdentity(info), kind: rule.kind, mode: 'keyboard-emulation' } };
  }
  if (info.usagePage !== undefined && info.usagePage >= VENDOR_PAGE_FIRST) {
    return {
      use: false,
      path: info.path,
      reason: 'reader is in vendor HID data mode, whose report layout differs per maker and model; switch it to keyboard emulation (see resources/scanners.md)',
    };
  }
  return null;
}

/**
 * The scanners in an enumeration, one per path. hidapi lists a composite device once per top-level
 * collection, all with the same path: a HID POS collection wins over a keyboard one, and a readable
 * collection over an unreadable one.
 */
export function classifyDevices(infos: readonly HidDeviceInfo[], keyboardDevices?: readonly KeyboardDeviceRule[]): Classification[] {
  const byPath = new Map<string, Classification>();
  const rank = (c: Classification) => (!c.use ? 0 : c.description.mode === 'hid-pos' ? 2 : 1);
  for (const info of infos) {
    const found = classifyDevice(info, keyboardDevices);
    if (!found) continue;
    const known = byPath.get(found.path);
    if (!known || rank(found) > rank(known)) byPath.set(found.path, found);
  }
  return [...byPath.values()];
}

/**
 * `vvvv[:pppp][:card|barcode]` in hex (`05e0:1200:barcode`, `0801:card`) to a rule; throws a readable
 * Error on anything else (command-line and config input).
 */
export function parseKeyboardDeviceRule(text: string): KeyboardDeviceRule {
  const match = /^(?:0x)?([0-9a-f]{1,4})(?::(?:0x)?([0-9a-f]{1,4}))?(?::(card|barcode))?$/i.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not VENDOR[:PRODUCT][:card|barcode] with hexadecimal ids (e.g. 05e0:1200:barcode).`);
  const [, vendor, product, kind] = match;
  return {
    vendorId: Number.parseInt(vendor ?? '', 16),
    ...(product ? { productId: Number.parseInt(product, 16) } : {}),
    kind: kind === 'card' ? 'card' : kind === 'barcode' ? 'barcode' : [MAGTEK_VENDOR_ID, IDTECH_VENDOR_ID].includes(Number.parseInt(vendor ?? '', 16)) ? 'card' : 'barcode',
  };
}
