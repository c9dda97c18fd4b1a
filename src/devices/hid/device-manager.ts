import { EventEmitter } from 'node:events';
import { type Classification, classifyDevices, type KeyboardDeviceRule } from './classify';
import { type HidBackend, type ScanLogger, silentLogger } from './hid-device';
import { HidScanSource } from './hid-scan-source';
import { HidPosReportDecoder, KeyboardReportDecoder, type ReportDecoder } from './report-decoders';

export interface HidDeviceManagerOptions {
  backend: HidBackend;
  /** Keyboard-emulation devices to read (default: MagTek and ID TECH card readers). */
  keyboardDevices?: readonly KeyboardDeviceRule[];
  /** How often to enumerate again; node-hid has no hot-plug events. */
  intervalMs?: number;
  now?: () => number;
  logger?: ScanLogger;
}

export const DEFAULT_RESCAN_INTERVAL_MS = 2_000;

/**
 * Finds scanners and card readers among the HID devices, opens them and keeps the set current:
 * every `intervalMs` it enumerates again, opens devices that appeared and closes those that vanished.
 * A device that errors is closed and dropped at once (and reopened by a later pass if it is still
 * there). Emits `added` and `removed` with the HidScanSource. Nothing here throws to the caller:
 * enumeration and open failures are logged (once per distinct problem) and retried on the next pass.
 */
export class HidDeviceManager extends EventEmitter {
  readonly #backend: HidBackend;
  readonly #keyboardDevices: readonly KeyboardDeviceRule[] | undefined;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #logger: ScanLogger;
  readonly #open = new Map<string, HidScanSource>();
  /** Last problem logged per path (or '*' for enumeration), so a failing device logs once, not every pass. */
  readonly #problems = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #scanning: Promise<void> | null = null;
  #stopped = false;

  constructor(options: HidDeviceManagerOptions) {
    super();
    this.#backend = options.backend;
    this.#keyboardDevices = options.keyboardDevices;
    this.#intervalMs = options.intervalMs ?? DEFAULT_RESCAN_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The sources of the devices open now. */
  sources(): HidScanSource[] {
    return [...this.#open.values()];
  }

  /** First pass now, then one every interval. */
  async start(): Promise<void> {
    this.#stopped = false;
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.rescan(), this.#intervalMs);
      this.#timer.unref?.();
    }
    await this.rescan();
  }

  /** Stops the passes and closes every device. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#scanning;
    for (const path of [...this.#open.keys()]) this.#drop(path);
  }

  /** One enumeration pass; a pass already running is joined rather than doubled. */
  rescan(): Promise<void> {
    this.#scanning ??= this.#pass().finally(() => {
      this.#scanning = null;
    });
    return this.#scanning;
  }

  async #pass(): Promise<void> {
    if (this.#stopped) return;
    let found: Classification[];
    try {
      found = classifyDevices(await this.#backend.devices(), this.#keyboardDevices);
      if (this.#problems.delete('*')) this.#logger.info({}, 'HID enumeration works again');
    } catch (error) {
      this.#note('*', `HID devices cannot be listed: ${messageOf(error)}`, {});
      return;
    }
    if (this.#stopped) return;
    const present = new Set(found.map((c) => c.path));
    for (const path of [...this.#open.keys()]) {
      if (!present.has(path)) {
        this.#logger.info({ source: path }, 'scanner unplugged');
        this.#drop(path);
      }
    }
    for (const path of [...this.#problems.keys()]) if (path !== '*' && !present.has(path)) this.#problems.delete(path);
    for (const device of found) {
      if (this.#open.has(device.path)) continue;
      if (!device.use) this.#note(device.path, device.reason, { source: device.path });
      else this.#openDevice(device.path, device.description);
    }
  }

  #openDevice(path: string, description: HidScanSource['description']): void {
    let source: HidScanSource;
    try {
      const decoder: ReportDecoder = description.mode === 'hid-pos' ? new HidPosReportDecoder() : new KeyboardReportDecoder();
      source = new HidScanSource({ id: path, description, device: this.#backend.open(path), decoder, now: this.#now, logger: this.#logger });
    } catch (error) {
      this.#note(path, `scanner cannot be opened: ${messageOf(error)} (on Linux, see resources/udev)`, { source: path, name: description.name });
      return;
    }
    this.#problems.delete(path);
    this.#open.set(path, source);
    source.on('lost', () => {
      if (this.#open.get(path) !== source) return;
      this.#open.delete(path);
      this.emit('removed', source);
    });
    source.start();
    this.#logger.info({ source: path, name: description.name, kind: description.kind, mode: description.mode }, 'scanner connected');
    this.emit('added', source);
  }

  #drop(path: string): void {
    const source = this.#open.get(path);
    if (!source) return;
    this.#open.delete(path);
    source.stop();
    this.emit('removed', source);
  }

  #note(key: string, message: string, fields: object): void {
    if (this.#problems.get(key) === message) return;
    this.#problems.set(key, message);
    this.#logger.warn(fields, message);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
