import type { ScanEvent } from '../scan-source';
import { type AimRejectCode, parseAim } from './aim';
import { type CardRejectCode, PAYMENT_CARD, type SwipeOptions, looksLikeSwipe, maskPan, parseSwipe } from './magstripe';
import { IdDocumentRest, isAamvaIdDocument } from './id-document';
import { holdsPaymentCardNumber } from './payment-card';
import { type Reject, reject } from './result';

// Pure decoders for scanner input: no I/O, no clocks of their own, no exceptions. Sources (node-hid,
// the renderer's wedge capture) feed them bytes or lines and turn what comes out into ScanEvents.

export {
  type AimParsed,
  type AimRejectCode,
  type AimResult,
  isAimIdentifier,
  parseAim,
  symbologyName,
} from './aim';
export {
  HID_POS_DEFAULT_GAP_TIMEOUT_MS,
  HID_POS_DEFAULT_MAX_BYTES,
  HID_POS_MAX_DATA,
  HID_POS_REPORT_ID,
  HID_POS_REPORT_SIZE,
  type HidPosAssemblerOptions,
  type HidPosBarcode,
  type HidPosFrame,
  type HidPosFrameResult,
  type HidPosOutcome,
  type HidPosRejectCode,
  HidPosAssembler,
  decodeHidPosPayload,
  decodeHidPosReport,
} from './hid-pos';
export {
  KEYBOARD_DEFAULT_GAP_TIMEOUT_MS,
  KEYBOARD_DEFAULT_MAX_LENGTH,
  KEYBOARD_REPORT_SIZE,
  KEY_ENTER,
  KEY_KEYPAD_ENTER,
  type KeyStroke,
  type KeyboardFrame,
  type KeyboardFrameResult,
  type KeyboardOutcome,
  type KeyboardRejectCode,
  type KeyboardScanAssemblerOptions,
  KeyboardScanAssembler,
  decodeKeyboardReport,
  keyStroke,
} from './keyboard';
export {
  type CardExpiry,
  type CardRead,
  type CardRejectCode,
  type CardResult,
  MAX_PAN_LENGTH,
  MIN_PAN_LENGTH,
  type SwipeOptions,
  looksLikeSwipe,
  luhnValid,
  maskPan,
  parseSwipe,
} from './magstripe';
export { type ReportBytes, type Reject, bytesToText } from './result';
export { ID_DOCUMENT_REST_MS, IdDocumentRest } from './id-document';

/** A decoded scan, ready to become a ScanEvent once the source adds its id and the time. */
export type DecodedScan = Pick<ScanEvent, 'kind' | 'value' | 'symbology'>;

export type LineRejectCode = 'empty_line' | 'empty_barcode' | 'id_document' | 'id_document_rest' | AimRejectCode | CardRejectCode;

export type LineResult =
  | {
      ok: true;
      scan: DecodedScan;
      /** The value as logs may show it: `maskPan(value)`, for barcodes too (they are identifications). */
      masked: string;
    }
  | Reject<LineRejectCode>;

/** A line without the control characters a reader adds at either end (CR/LF, STX/ETX). */
function withoutControlEnds(line: string): string {
  // eslint-disable-next-line no-control-regex -- the point is to drop control characters
  return line.replace(/^[\x00-\x1f\x7f]+|[\x00-\x1f\x7f]+$/g, '');
}

/**
 * A completed keyboard-wedge line (Enter already stripped; control characters a reader adds at
 * either end — CR/LF, STX/ETX — are dropped) to a scan:
 * - starts with `%` or `;`: a magnetic stripe swipe, a `card` scan whose value is the card number;
 * - otherwise a barcode, with its AIM symbology identifier split off when the scanner sent one.
 * A payment card is refused (`payment_card`), also when its swipe is unreadable (another keyboard
 * layout, a reader's prefix): its number is never passed on as a barcode to look up. A driver's
 * licence (AAMVA PDF417) is refused too (`id_document`).
 * Rejects, never throws: an empty line, a bad swipe (see `parseSwipe`), a malformed AIM prefix, or an
 * AIM prefix with no data after it.
 */
export function scanFromKeyboardLine(line: string, options: SwipeOptions = {}): LineResult {
  const text = withoutControlEnds(line);
  if (text.length === 0) return reject('empty_line', 'scan line is empty');
  if (looksLikeSwipe(text)) {
    const card = parseSwipe(text, { ...options, refusePaymentCards: true });
    if (card.ok) return { ok: true, scan: { kind: 'card', value: card.pan }, masked: card.masked };
    return holdsPaymentCardNumber(text) ? PAYMENT_CARD : card;
  }
  const refused = refusedBarcode(text);
  if (refused) return refused;
  const aim = parseAim(text);
  if (!aim.ok) return aim;
  if (aim.data.length === 0) return reject('empty_barcode', 'barcode has a symbology identifier but no data');
  return {
    ok: true,
    scan: { kind: 'barcode', value: aim.data, ...(aim.symbology ? { symbology: aim.symbology } : {}) },
    masked: maskPan(aim.data),
  };
}

const ID_DOCUMENT = reject('id_document', "a driver's licence or ID card, not an identification here: it is not read");

/**
 * What no barcode may be looked up as, however it was read (a wedge line, a HID POS scanner's
 * report): a payment card number (`payment_card`) or a driver's licence (`id_document`).
 */
export function refusedBarcode(text: string): Reject<'payment_card' | 'id_document'> | null {
  if (holdsPaymentCardNumber(text)) return PAYMENT_CARD;
  if (isAamvaIdDocument(text)) return ID_DOCUMENT;
  return null;
}

/**
 * scanFromKeyboardLine for one source's lines in turn: a licence's body lines right after its
 * refused header (IdDocumentRest) are refused as `id_document_rest`, never looked up.
 */
export function scanFromSourceLine(line: string, at: number, rest: IdDocumentRest, options: SwipeOptions = {}): LineResult {
  if (rest.holds(withoutControlEnds(line), at)) return reject('id_document_rest', "the rest of a driver's licence or ID card: it is not read");
  const result = scanFromKeyboardLine(line, options);
  if (!result.ok && result.code === 'id_document') rest.opened(at);
  return result;
}
