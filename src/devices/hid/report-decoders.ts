import {
  type DecodedScan,
  HID_POS_DEFAULT_GAP_TIMEOUT_MS,
  HidPosAssembler,
  IdDocumentRest,
  KEYBOARD_DEFAULT_GAP_TIMEOUT_MS,
  KEYBOARD_REPORT_SIZE,
  KeyboardScanAssembler,
  maskPan,
  type Reject,
  refusedBarcode,
  scanFromSourceLine,
  type SwipeOptions,
} from '../decoders';

// A HID source reads reports; what turns them into scans depends on the device's mode. Both modes
// here wrap the pure assemblers and answer with whole scans (with their masked form for logs) or
// rejects, never throwing.

export type ReportResult = { ok: true; scan: DecodedScan; masked: string } | Reject;

export interface ReportDecoder {
  /** Feeds one input report as node-hid delivers it; returns what it finished. */
  push(report: Uint8Array, at: number): ReportResult[];
  /** Drops a partial scan after `gapTimeoutMs` of silence; says so if it did. */
  expire(at: number): Reject | null;
  /** True while a scan has started and not finished. */
  readonly pending: boolean;
  readonly gapTimeoutMs: number;
}

/** HID POS scanners (usage page 0x8C): report id 2, length, AIM id, data, "more follows" flag. */
export class HidPosReportDecoder implements ReportDecoder {
  readonly #assembler: HidPosAssembler;

  constructor(readonly gapTimeoutMs = HID_POS_DEFAULT_GAP_TIMEOUT_MS) {
    this.#assembler = new HidPosAssembler({ gapTimeoutMs });
  }

  get pending(): boolean {
    return this.#assembler.pending;
  }

  push(report: Uint8Array, at: number): ReportResult[] {
    return this.#assembler.push(report, at).map((outcome) => {
      if (!outcome.ok) return outcome;
      const { value, symbology } = outcome.barcode;
      // A licence or a card number a 2D scanner read whole is refused as through a wedge.
      return refusedBarcode(value) ?? { ok: true, scan: { kind: 'barcode', value, ...(symbology ? { symbology } : {}) }, masked: maskPan(value) };
    });
  }

  expire(at: number): Reject | null {
    return this.#assembler.expire(at);
  }
}

/**
 * Keyboard-emulation devices read raw (hidraw): boot keyboard reports become characters, Enter ends a
 * line, and the line is a swipe (`%…?;…?`, a card scan of its number) or a barcode (AIM prefix split
 * off). A device whose descriptor numbers its reports sends 9 bytes, the report id first: stripped.
 */
export class KeyboardReportDecoder implements ReportDecoder {
  readonly #assembler: KeyboardScanAssembler;
  /** A licence comes as one line per data element: its lines after the refused header are refused too. */
  readonly #idDocumentRest = new IdDocumentRest();

  constructor(
    readonly gapTimeoutMs = KEYBOARD_DEFAULT_GAP_TIMEOUT_MS,
    private readonly swipe: SwipeOptions = {},
  ) {
    this.#assembler = new KeyboardScanAssembler({ gapTimeoutMs });
  }

  get pending(): boolean {
    return this.#assembler.pending;
  }

  push(report: Uint8Array, at: number): ReportResult[] {
    const bytes = report.length === KEYBOARD_REPORT_SIZE + 1 ? report.subarray(1) : report;
    return this.#assembler.push(bytes, at).map((outcome) => {
      if (!outcome.ok) return outcome;
      return scanFromSourceLine(outcome.line, at, this.#idDocumentRest, this.swipe);
    });
  }

  expire(at: number): Reject | null {
    return this.#assembler.expire(at);
  }
}
