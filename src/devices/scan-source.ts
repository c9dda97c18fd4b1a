import { EventEmitter } from 'node:events';

// Every scanner, whatever its kind (HID POS barcode scanner, HID card reader, keyboard wedge
// captured by the renderer, a script), emits the same normalised event. The HID sources live in
// ./hid and feed device reports through the pure decoders in ./decoders.

export interface ScanEvent {
  kind: 'barcode' | 'card';
  /** The identification read: a barcode's data, or the card number a swipe yielded (never raw tracks). */
  value: string;
  /** AIM symbology identifier when the device reports one (]C0 Code 128, ]Q1 QR…). */
  symbology?: string;
  /** Which source read it (device path or name). */
  source: string;
  /** Epoch milliseconds. */
  at: number;
}

/** Input a source could not turn into a scan: a clear reason, never the bytes or text read. */
export interface ScanReject {
  /** Which source read it. */
  source: string;
  /** A decoder's machine code (`bad_luhn`, `truncated`, `timeout`…). */
  code: string;
  /** Fixed human-readable reason; never repeats the input. */
  reason: string;
  /** Epoch milliseconds. */
  at: number;
}

export interface ScanSource {
  readonly id: string;
  on(event: 'scan', listener: (scan: ScanEvent) => void): this;
  on(event: 'reject', listener: (reject: ScanReject) => void): this;
  off(event: 'scan', listener: (scan: ScanEvent) => void): this;
  off(event: 'reject', listener: (reject: ScanReject) => void): this;
  start(): void;
  stop(): void;
}

/** What a scanner is, for the Settings screen (GET /app/scanners). */
export interface ScannerDescription {
  name: string;
  /**
   * The device's identity across re-plugs and restarts (its station is kept under it):
   * `usb:vvvv:pppp:SERIAL`, or `usb:vvvv:pppp@PATH` for a device without a serial number.
   */
  device: string;
  kind: ScanEvent['kind'];
  /** How it is read: HID POS reports, boot keyboard reports over hidraw, or a script. */
  mode: 'hid-pos' | 'keyboard-emulation' | 'scripted';
}

/** A source driven by code: tests and demos "scan" with it exactly as a device would. */
export class ScriptedScanSource extends EventEmitter implements ScanSource {
  #running = false;

  /** A script's identity is its id: `scripted:<id>`. */
  readonly device: string;

  constructor(
    readonly id = 'scripted',
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.device = `scripted:${id}`;
  }

  start(): void {
    this.#running = true;
  }

  stop(): void {
    this.#running = false;
  }

  /** Emits a scan as a device would; a stopped source, like an unplugged device, emits nothing. */
  scan(value: string, kind: ScanEvent['kind'] = 'barcode', symbology?: string): boolean {
    if (!this.#running) return false;
    const event: ScanEvent = { kind, value, source: this.id, at: this.now(), ...(symbology ? { symbology } : {}) };
    return this.emit('scan', event);
  }
}
