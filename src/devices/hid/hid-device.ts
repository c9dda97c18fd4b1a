// The seam between scanner code and node-hid. node-hid is the outside boundary: everything in this
// folder talks to these small interfaces, which mirror node-hid's `HID` class and `devices()` entries,
// so tests drive the same code with a fake device that replays recorded reports.

/** One entry of node-hid's `devices()`: a top-level collection of a HID device. */
export interface HidDeviceInfo {
  vendorId: number;
  productId: number;
  /** OS path to open (hidraw node on Linux). Entries without one cannot be opened. */
  path?: string | undefined;
  manufacturer?: string | undefined;
  product?: string | undefined;
  serialNumber?: string | undefined;
  interface?: number | undefined;
  usagePage?: number | undefined;
  usage?: number | undefined;
}

/** An open device, as node-hid's `HID` class behaves: input reports arrive as 'data' events. */
export interface HidDevice {
  on(event: 'data', listener: (report: Buffer) => void): this;
  on(event: 'error', listener: (error: unknown) => void): this;
  removeAllListeners(): this;
  close(): void;
}

/** Enumerates and opens devices: node-hid in production, a fake in tests. */
export interface HidBackend {
  devices(): Promise<HidDeviceInfo[]>;
  /** Opens the device at `path`; throws when it cannot (permissions, unplugged meanwhile). */
  open(path: string): HidDevice;
}

/** A logger shaped like pino's (`logger.warn({…}, 'message')`), so the node's logger fits as is. */
export interface ScanLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export const silentLogger: ScanLogger = { info: () => {}, warn: () => {} };

/** `0x0c2e`: how ids are written in udev rules and manuals. */
export function hex4(id: number): string {
  return `0x${id.toString(16).padStart(4, '0')}`;
}
