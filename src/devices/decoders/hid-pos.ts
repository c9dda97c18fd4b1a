import { isAimIdentifier } from './aim';
import { type ReportBytes, type Reject, bytesToText, reject, toBytes } from './result';

// HID POS barcode scanners (usage page 0x8C, "HID Point of Sale Usage Tables" v1.02) send each decoded
// barcode in one or more input reports. The USB-IF tables define the usages (symbology identifier,
// decoded data, "decode data continued") but not the byte positions; those come from the device's
// report descriptor. The layout below is the one Honeywell, Zebra, Datalogic and Access-IS devices use
// (NielsLeenheer/WebHidBarcodeScanner reads it; the Access-IS LSR118/ATR110 manuals tabulate it):
//
//   byte  0      report id, 0x02
//   byte  1      number of decoded-data bytes in THIS report (0..56)
//   bytes 2-4    AIM symbology identifier (`]C0`, `]Q1`…), or three zero bytes when not sent
//   bytes 5-60   decoded data (56 bytes; bytes past the length are padding)
//   byte  61     vendor symbology id (Honeywell's own code, e.g. 0x6a Code 128)
//   byte  62     reserved
//   byte  63     bit 0 set: "decode data continued", the barcode goes on in the next report
//
// These are the offsets in the bytes node-hid/hidraw deliver, report id first (64 bytes). WebHID hands
// the report id separately and the rest as a 63-byte DataView, so there every offset is one less: the
// length at 0, AIM at 1-3, data from 4, vendor symbology at 60, the continuation flag at 62, as the
// research and WebHidBarcodeScanner describe. `decodeHidPosPayload` takes that form.

export const HID_POS_REPORT_ID = 0x02;
/** Report size including the report id byte. */
export const HID_POS_REPORT_SIZE = 64;
/** Decoded-data bytes one report can carry. */
export const HID_POS_MAX_DATA = 56;

// Offsets within the payload (the report without its id byte).
const LENGTH = 0;
const AIM = 1;
const DATA = 4;
const VENDOR_SYMBOLOGY = 60;
const FLAGS = 62;
const CONTINUED = 0x01;

export type HidPosRejectCode =
  | 'empty'
  | 'truncated'
  | 'oversized'
  | 'wrong_report_id'
  | 'length_overflow'
  | 'bad_symbology'
  | 'symbology_changed'
  | 'empty_barcode'
  | 'too_long'
  | 'timeout';

/** One input report, decoded. */
export interface HidPosFrame {
  ok: true;
  /** AIM identifier (`]C0`), undefined when the device sent zeros there. */
  symbology?: string;
  /** The vendor's own symbology byte (0 when unused). */
  vendorSymbology: number;
  /** This report's decoded-data bytes (a slice of at most 56). */
  data: Uint8Array;
  /** True when the barcode continues in the next report. */
  more: boolean;
}

export type HidPosFrameResult = HidPosFrame | Reject<HidPosRejectCode>;

/** Decodes one input report as node-hid delivers it: the report id in byte 0, 64 bytes in all. */
export function decodeHidPosReport(report: ReportBytes): HidPosFrameResult {
  const bytes = toBytes(report);
  if (bytes.length === 0) return reject('empty', 'HID POS report is empty');
  return decodeHidPosPayload(bytes[0] ?? -1, bytes.subarray(1));
}

/** Decodes one input report given as report id plus payload (WebHID's `inputreport` event form). */
export function decodeHidPosPayload(reportId: number, payload: ReportBytes): HidPosFrameResult {
  const bytes = toBytes(payload);
  if (reportId !== HID_POS_REPORT_ID) {
    return reject('wrong_report_id', `HID POS report id ${hex(reportId)} is not the scanned-data report (${hex(HID_POS_REPORT_ID)})`);
  }
  const size = HID_POS_REPORT_SIZE - 1;
  if (bytes.length === 0) return reject('empty', 'HID POS report has no payload');
  if (bytes.length < size) {
    return reject('truncated', `HID POS report is truncated: ${bytes.length + 1} of ${HID_POS_REPORT_SIZE} bytes`);
  }
  if (bytes.length > size) {
    return reject('oversized', `HID POS report is ${bytes.length + 1} bytes, expected ${HID_POS_REPORT_SIZE}`);
  }
  const length = bytes[LENGTH] ?? 0;
  if (length > HID_POS_MAX_DATA) {
    return reject('length_overflow', `HID POS report claims ${length} data bytes, at most ${HID_POS_MAX_DATA} fit`);
  }
  const aim = bytes.subarray(AIM, AIM + 3);
  let symbology: string | undefined;
  if (aim.some((b) => b !== 0)) {
    const text = String.fromCharCode(...aim);
    if (!isAimIdentifier(text)) return reject('bad_symbology', 'HID POS report has a malformed AIM symbology identifier');
    symbology = text;
  }
  return {
    ok: true,
    ...(symbology ? { symbology } : {}),
    vendorSymbology: bytes[VENDOR_SYMBOLOGY] ?? 0,
    data: new Uint8Array(bytes.subarray(DATA, DATA + length)), // a copy, and a plain Uint8Array even from a Buffer
    more: ((bytes[FLAGS] ?? 0) & CONTINUED) !== 0,
  };
}

export interface HidPosBarcode {
  value: string;
  symbology?: string;
}

/** What a pushed report produced: a finished barcode or a reject. Partial barcodes produce nothing. */
export type HidPosOutcome = { ok: true; barcode: HidPosBarcode } | Reject<HidPosRejectCode>;

export interface HidPosAssemblerOptions {
  /** Longest quiet time between two reports of one barcode; a partial older than this is dropped. */
  gapTimeoutMs?: number;
  /** Longest barcode accepted, in bytes (a QR code holds at most 2953). */
  maxBytes?: number;
}

export const HID_POS_DEFAULT_GAP_TIMEOUT_MS = 500;
export const HID_POS_DEFAULT_MAX_BYTES = 4096;

/**
 * Joins multi-report barcodes. Feed it every input report with the time it arrived (epoch or monotonic
 * milliseconds, the assembler only subtracts them); it answers with what the report finished: nothing
 * (a barcode has started or goes on), one whole barcode, or a reject.
 *
 * - Any reject drops the partial barcode. After a malformed report the assembler also discards the
 *   reports that follow until one ends a barcode (continuation flag clear) or the device has been quiet
 *   for `gapTimeoutMs`: the tail of a broken barcode is never emitted as a barcode of its own. A report
 *   with another report id is not part of any barcode, so it only drops a partial one.
 * - A partial barcode with no report for more than `gapTimeoutMs` is dropped with a `timeout` reject,
 *   when the next report arrives (the late report starts a new barcode) or when `expire(now)` is called.
 * Never throws.
 */
export class HidPosAssembler {
  readonly #gapTimeoutMs: number;
  readonly #maxBytes: number;
  #chunks: Uint8Array[] = [];
  #size = 0;
  #symbology: string | undefined;
  #lastAt = Number.NEGATIVE_INFINITY;
  #pending = false;
  #discarding = false;

  constructor(options: HidPosAssemblerOptions = {}) {
    this.#gapTimeoutMs = options.gapTimeoutMs ?? HID_POS_DEFAULT_GAP_TIMEOUT_MS;
    this.#maxBytes = options.maxBytes ?? HID_POS_DEFAULT_MAX_BYTES;
  }

  /** True while a barcode has started and not yet finished. */
  get pending(): boolean {
    return this.#pending;
  }

  /** True while the reports after a malformed one are being thrown away. */
  get discarding(): boolean {
    return this.#discarding;
  }

  /** Forgets any partial barcode and leaves discard mode. */
  reset(): void {
    this.#clear();
    this.#discarding = false;
  }

  /** Drops a partial barcode when the device has been quiet too long; says so if it did. */
  expire(at: number): Reject<'timeout'> | null {
    if (at - this.#lastAt <= this.#gapTimeoutMs) return null;
    this.#discarding = false;
    if (!this.#pending) return null;
    this.#clear();
    return reject('timeout', `HID POS barcode was cut off: no report for more than ${this.#gapTimeoutMs} ms`);
  }

  /** `report` as node-hid delivers it (report id first). */
  push(report: ReportBytes, at: number): HidPosOutcome[] {
    return this.#accept(decodeHidPosReport(report), at);
  }

  /** WebHID form: report id and payload apart. */
  pushPayload(reportId: number, payload: ReportBytes, at: number): HidPosOutcome[] {
    return this.#accept(decodeHidPosPayload(reportId, payload), at);
  }

  #accept(frame: HidPosFrameResult, at: number): HidPosOutcome[] {
    const outcomes: HidPosOutcome[] = [];
    const dropped = this.expire(at);
    if (dropped) outcomes.push(dropped);
    this.#lastAt = at;
    const outcome = this.#take(frame);
    if (outcome) outcomes.push(outcome);
    return outcomes;
  }

  #take(frame: HidPosFrameResult): HidPosOutcome | null {
    if (!frame.ok) {
      const wasPending = this.#pending;
      this.#clear();
      // A report we could not read may have been part of a barcode; skip that barcode's rest.
      this.#discarding = frame.code !== 'wrong_report_id' || wasPending;
      return frame;
    }
    if (this.#discarding) {
      if (!frame.more) this.#discarding = false;
      return null;
    }
    if (this.#pending && frame.symbology !== this.#symbology && frame.symbology !== undefined) {
      return this.#fail(frame, reject('symbology_changed', 'HID POS report changed symbology in the middle of a barcode'));
    }
    if (!this.#pending) this.#symbology = frame.symbology;
    if (this.#size + frame.data.length > this.#maxBytes) {
      return this.#fail(frame, reject('too_long', `HID POS barcode is longer than ${this.#maxBytes} bytes`));
    }
    this.#chunks.push(frame.data);
    this.#size += frame.data.length;
    if (frame.more) {
      this.#pending = true;
      return null;
    }
    const bytes = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    const symbology = this.#symbology;
    this.#clear();
    if (bytes.length === 0) return reject('empty_barcode', 'HID POS scan carried no data');
    return { ok: true, barcode: { value: bytesToText(bytes), ...(symbology ? { symbology } : {}) } };
  }

  /** A readable report that breaks the barcode: drop it, and its rest if more reports follow. */
  #fail(frame: HidPosFrame, rejection: Reject<HidPosRejectCode>): Reject<HidPosRejectCode> {
    this.#clear();
    this.#discarding = frame.more;
    return rejection;
  }

  #clear(): void {
    this.#chunks = [];
    this.#size = 0;
    this.#symbology = undefined;
    this.#pending = false;
  }
}

function hex(n: number): string {
  return n < 0 ? 'none' : `0x${n.toString(16).padStart(2, '0')}`;
}
