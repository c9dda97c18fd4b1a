import { EventEmitter } from 'node:events';
import type { StoreScope } from '../../core/credentials/authenticate';
import type { Engine } from '../../core/engine';
import { assignScannerStation, scannerStationOf, scannerStations } from '../../core/scanner-stations/scanner-stations';
import { maskPan } from '../../devices/decoders';
import { type HidDeviceManager, type HidScanSource, type ScanLogger, silentLogger } from '../../devices/hid';
import type { ScanEvent, ScannerDescription, ScanReject, ScanSource } from '../../devices/scan-source';
import { isServiceError, ServiceError } from '../../shared/errors';
import type { ScannerStation } from '../../shared/schemas/scanners';
import { checkInScan } from './scan-check-in';

/** One scanner as GET /app/scanners shows it. */
export interface ScannerStatus extends ScannerDescription {
  id: string;
  connected: boolean;
  /** Epoch ms of the last scan read, null before the first. */
  lastScanAt: number | null;
}

/** A scanner with the station it serves (null: not assigned, every screen treats its scans as its own). */
export interface ScannerAssignment extends ScannerStatus {
  station: ScannerStation | null;
}

/** What the HTTP face needs: the list, the store the scanners check in at, and station assignment. */
export interface ScannerDirectory {
  list(): ScannerStatus[];
  storeScope(): Promise<StoreScope | null>;
  /** The scanners with their stations, for the store they serve (empty while there is none). */
  assignments(): Promise<ScannerAssignment[]>;
  /**
   * Assigns a listed scanner (by id or device identity) to a station, or (null) takes it away;
   * 404 `scanner_not_found` for anything not listed now.
   */
  assignStation(scanner: string, station: ScannerStation | null): Promise<ScannerAssignment>;
}

/** What became of a scan: emitted as 'check-in' (tests and logs use it). */
export type ScanOutcome =
  | { ok: true; source: string; masked: string; sessionId: number }
  | { ok: false; source: string; masked: string; code: string };

/**
 * Rejects that are a device talking, not a person scanning (status reports, idle keyboard reports,
 * framing the decoder does not know): logged by the source, not announced to the store's screens.
 */
/** Decoder rejects the screens are told by name (a kiosk shows the node's message); the rest are unreadable. */
const REJECT_EVENT_CODES: Readonly<Record<string, string>> = { payment_card: 'payment_card_scanned', id_document: 'id_document_scanned' };
// A licence's lines after its header: the header's rejection already told the screens.
const DEVICE_NOISE = new Set(['empty', 'empty_line', 'wrong_report_id', 'not_bytes', 'unknown_key', 'rollover_error', 'truncated', 'oversized', 'decoder_error', 'id_document_rest']);

interface Entry {
  source: ScanSource;
  description: ScannerDescription;
  connected: () => boolean;
  lastScanAt: number | null;
  detach: () => void;
}

export interface ScannerServiceOptions {
  engine: Engine;
  /** Where scans check in (see scannerScopeResolver). */
  storeScope: () => Promise<StoreScope | null>;
  /** Sources that are always there (scripted ones for tests and demos). */
  sources?: readonly ScanSource[];
  /** HID scanners and card readers, with hot-plug. */
  hid?: HidDeviceManager | null;
  logger?: ScanLogger;
}

/**
 * The node's scanners: every scan from any source checks the customer in at the configured store
 * (through checkInScan, like POST /app/scans), so screens learn of it from GET /app/events. A scan
 * that finds nobody is logged (masked) and dropped; nothing here throws into a device's event loop.
 */
export class ScannerService extends EventEmitter implements ScannerDirectory {
  readonly #engine: Engine;
  readonly #scope: () => Promise<StoreScope | null>;
  readonly #static: readonly ScanSource[];
  readonly #hid: HidDeviceManager | null;
  readonly #logger: ScanLogger;
  readonly #entries = new Map<ScanSource, Entry>();
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;

  constructor(options: ScannerServiceOptions) {
    super();
    this.#engine = options.engine;
    this.#scope = options.storeScope;
    this.#static = options.sources ?? [];
    this.#hid = options.hid ?? null;
    this.#logger = options.logger ?? silentLogger;
  }

  storeScope(): Promise<StoreScope | null> {
    return this.#scope();
  }

  /** The HID device manager, when HID scanners are read (a pass can be forced with rescan()). */
  get hidManager(): HidDeviceManager | null {
    return this.#hid;
  }

  list(): ScannerStatus[] {
    return [...this.#entries.entries()].map(([source, entry]) => ({
      id: source.id,
      ...entry.description,
      connected: entry.connected(),
      lastScanAt: entry.lastScanAt,
    }));
  }

  async assignments(): Promise<ScannerAssignment[]> {
    const scope = await this.#scope();
    if (!scope) return [];
    const stations = await scannerStations(this.#engine, scope);
    return this.list().map((s) => ({ ...s, station: stations.get(s.device) ?? null }));
  }

  async assignStation(scanner: string, station: ScannerStation | null): Promise<ScannerAssignment> {
    const scope = await this.#scope();
    const found = this.list().find((s) => s.id === scanner || s.device === scanner);
    if (!scope || !found) throw new ServiceError('scanner_not_found', undefined, 'scanner');
    await assignScannerStation(this.#engine, scope, found.device, station);
    this.#logger.info({ source: found.id, device: found.device, station }, station ? `scanner assigned to the ${station}` : 'scanner station cleared');
    return { ...found, station };
  }

  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    for (const source of this.#static) {
      // A scripted source is "connected" while the service runs; it may read cards or barcodes.
      this.#attach(source, { name: source.id, device: `scripted:${source.id}`, kind: 'barcode', mode: 'scripted' }, () => this.#running);
      source.start();
    }
    if (this.#hid) {
      this.#hid.on('added', this.#onAdded);
      this.#hid.on('removed', this.#onRemoved);
      await this.#hid.start();
    }
    // Resolve the store now, so GET /app/scanners and the first scan find it ready.
    await this.#scope();
  }

  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    if (this.#hid) {
      this.#hid.off('added', this.#onAdded);
      this.#hid.off('removed', this.#onRemoved);
      await this.#hid.stop();
    }
    for (const source of this.#static) source.stop();
    for (const entry of this.#entries.values()) entry.detach();
    this.#entries.clear();
    // Check-ins under way finish before the engine closes.
    await Promise.all([...this.#inFlight]);
  }

  readonly #onAdded = (source: HidScanSource) => this.#attach(source, source.description, () => source.connected);

  readonly #onRemoved = (source: HidScanSource) => {
    this.#entries.get(source)?.detach();
    this.#entries.delete(source);
  };

  #attach(source: ScanSource, description: ScannerDescription, connected: () => boolean): void {
    const onScan = (scan: ScanEvent) => {
      const entry = this.#entries.get(source);
      if (entry) entry.lastScanAt = scan.at;
      this.#track(this.#checkIn(scan, description.device));
    };
    // A swipe or barcode the device read but nobody can use (bad Luhn, garbled track, cut off): the
    // screens hear of it like a code that finds nobody, so a kiosk asks to scan again.
    const onReject = (rejected: ScanReject) => {
      if (DEVICE_NOISE.has(rejected.code)) return;
      this.#track(this.#scope().then(async (scope) => scope && this.#publishRejected(scope, REJECT_EVENT_CODES[rejected.code] ?? 'unreadable_scan', await scannerStationOf(this.#engine, scope, description.device))));
    };
    source.on('scan', onScan);
    source.on('reject', onReject);
    this.#entries.set(source, {
      source,
      description,
      connected,
      lastScanAt: null,
      detach: () => {
        source.off('scan', onScan);
        source.off('reject', onReject);
      },
    });
  }

  /** Work stop() waits for; a failure is already logged or harmless (a store that cannot be found). */
  #track(work: Promise<unknown>): void {
    const tracked: Promise<void> = work.then(
      () => undefined,
      () => undefined,
    ).finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  /** Tells the store's screens a scan was read but checked nobody in (never the value), and at which station. */
  #publishRejected(scope: StoreScope, reason: string, station: ScannerStation | null): void {
    this.#engine.events.publish({
      type: 'scan.rejected',
      vendorId: scope.vendorId,
      storeId: scope.storeId,
      sessionId: null,
      by: 'scanner',
      ...(station ? { station } : {}),
      reason,
      at: this.#engine.clock.now(),
    });
  }

  /** Checks the scan in at the store, its session events carrying the scanner's station. */
  async #checkIn(scan: ScanEvent, device: string): Promise<void> {
    const masked = maskPan(scan.value);
    let outcome: ScanOutcome;
    let scope: StoreScope | null = null;
    let station: ScannerStation | null = null;
    try {
      scope = await this.#scope();
      if (!scope) {
        outcome = { ok: false, source: scan.source, masked, code: 'no_store' };
      } else {
        station = await scannerStationOf(this.#engine, scope, device);
        const { result } = await checkInScan(this.#engine, scope, scan, { via: 'scanner', station });
        outcome = { ok: true, source: scan.source, masked, sessionId: result.session.id };
        this.#logger.info({ source: scan.source, kind: scan.kind, value: masked, pos_session_id: result.session.id }, 'scan checked a customer in');
      }
    } catch (error) {
      const code = isServiceError(error) ? error.code : 'internal_error';
      outcome = { ok: false, source: scan.source, masked, code };
    }
    if (!outcome.ok) {
      this.#logger.warn({ source: scan.source, kind: scan.kind, value: masked, code: outcome.code }, 'scan did not check anyone in');
      // The screens of the store say so (a kiosk shows its retry screen); the value stays here.
      if (scope) this.#publishRejected(scope, outcome.code, station);
    }
    this.emit('check-in', outcome);
  }
}

