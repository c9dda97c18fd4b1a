import { EventEmitter } from 'node:events';
import type { ScanEvent, ScannerDescription, ScanReject, ScanSource } from '../scan-source';
import { type HidDevice, type ScanLogger, silentLogger } from './hid-device';
import type { ReportDecoder, ReportResult } from './report-decoders';

export interface HidScanSourceOptions {
  /** Stable id of the source (the device path). */
  id: string;
  description: ScannerDescription;
  device: HidDevice;
  decoder: ReportDecoder;
  now?: () => number;
  logger?: ScanLogger;
}

/**
 * A scanner or card reader read through node-hid: every input report goes through the decoder, and
 * what comes out is a `scan` (normalised event) or a `reject` (a clear reason). A partial scan that
 * stops arriving is rejected once the decoder's gap has passed, not left hanging.
 *
 * Logs carry the masked value only; raw reports and track data are never logged or kept.
 * A device error (unplugged, read failure) closes the device and emits `lost` with a message; the
 * device manager drops the source then. Never throws from a report.
 */
export class HidScanSource extends EventEmitter implements ScanSource {
  readonly id: string;
  readonly description: ScannerDescription;
  readonly #device: HidDevice;
  readonly #decoder: ReportDecoder;
  readonly #now: () => number;
  readonly #logger: ScanLogger;
  #state: 'idle' | 'reading' | 'closed' = 'idle';
  #expiry: NodeJS.Timeout | null = null;
  #lastScanAt: number | null = null;

  constructor(options: HidScanSourceOptions) {
    super();
    this.id = options.id;
    this.description = options.description;
    this.#device = options.device;
    this.#decoder = options.decoder;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? silentLogger;
  }

  /** True while the device is open and being read. */
  get connected(): boolean {
    return this.#state === 'reading';
  }

  get lastScanAt(): number | null {
    return this.#lastScanAt;
  }

  start(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'reading';
    // node-hid starts its read loop when the first 'data' listener is added.
    this.#device.on('error', (error) => this.#lose(error));
    this.#device.on('data', (report) => this.#receive(report));
  }

  stop(): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#clearExpiry();
    this.#device.removeAllListeners();
    try {
      this.#device.close();
    } catch {
      // Already gone (unplugged): nothing left to release.
    }
  }

  #receive(report: unknown): void {
    if (this.#state !== 'reading') return;
    const at = this.#now();
    let results: ReportResult[];
    if (!(report instanceof Uint8Array)) {
      results = [{ ok: false, code: 'not_bytes', reason: 'device delivered something that is not a byte report' }];
    } else {
      try {
        results = this.#decoder.push(report, at);
      } catch {
        // The decoders never throw; if one ever does, a bad report must still not end the reader.
        results = [{ ok: false, code: 'decoder_error', reason: 'report could not be decoded' }];
      }
    }
    for (const result of results) this.#publish(result, at);
    this.#scheduleExpiry();
  }

  #publish(result: ReportResult, at: number): void {
    if (!result.ok) {
      const rejected: ScanReject = { source: this.id, code: result.code, reason: result.reason, at };
      this.#logger.warn({ source: this.id, code: result.code }, `scan rejected: ${result.reason}`);
      this.emit('reject', rejected);
      return;
    }
    this.#lastScanAt = at;
    const scan: ScanEvent = { ...result.scan, source: this.id, at };
    this.#logger.info({ source: this.id, kind: scan.kind, value: result.masked, symbology: scan.symbology ?? null }, 'scan read');
    this.emit('scan', scan);
  }

  /** While a scan is half read, check back once the gap has passed so a cut-off scan is reported. */
  #scheduleExpiry(): void {
    this.#clearExpiry();
    if (!this.#decoder.pending) return;
    this.#expiry = setTimeout(() => {
      this.#expiry = null;
      if (this.#state !== 'reading') return;
      const at = this.#now();
      const dropped = this.#decoder.expire(at);
      if (dropped) this.#publish(dropped, at);
    }, this.#decoder.gapTimeoutMs + 1);
    this.#expiry.unref?.();
  }

  #clearExpiry(): void {
    if (this.#expiry) clearTimeout(this.#expiry);
    this.#expiry = null;
  }

  #lose(error: unknown): void {
    if (this.#state !== 'reading') return;
    const message = error instanceof Error ? error.message : String(error);
    this.stop();
    this.#logger.warn({ source: this.id, error: message }, 'scanner lost');
    this.emit('lost', message);
  }
}
