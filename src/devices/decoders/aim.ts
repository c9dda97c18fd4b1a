import { type Reject, reject } from './result';

// AIM symbology identifiers (ISO/IEC 15424): a scanner configured to send them puts `]`, a code
// character naming the symbology and a modifier character before the data, e.g. `]C0` (Code 128),
// `]E0` (EAN-13), `]Q1` (QR Code), `]d2` (GS1 Data Matrix). HID POS scanners carry the same three
// characters in a field of their report; keyboard-wedge scanners type them before the data.

export type AimRejectCode = 'aim_truncated' | 'aim_malformed';

export interface AimParsed {
  ok: true;
  /** The three-character identifier (`]C0`), or undefined when the input had no prefix. */
  symbology?: string;
  /** A readable name for the identifier, when it has a prefix. */
  name?: string;
  /** The data after the prefix; the whole input when there is none. */
  data: string;
}

export type AimResult = AimParsed | Reject<AimRejectCode>;

/** Names by code character; modifiers that change the meaning are listed in `byIdentifier`. */
const byCode: Readonly<Record<string, string>> = {
  A: 'Code 39',
  B: 'Telepen',
  C: 'Code 128',
  D: 'Code One',
  E: 'EAN/UPC',
  F: 'Codabar',
  G: 'Code 93',
  H: 'Code 11',
  I: 'Interleaved 2 of 5',
  K: 'Code 16K',
  L: 'PDF417',
  M: 'MSI',
  N: 'Anker',
  O: 'Codablock',
  P: 'Plessey',
  Q: 'QR Code',
  R: 'Straight 2 of 5 (2-bar start/stop)',
  S: 'Straight 2 of 5 (3-bar start/stop)',
  U: 'MaxiCode',
  X: 'Other symbology',
  Z: 'Non-barcode data',
  d: 'Data Matrix',
  e: 'GS1 DataBar',
  z: 'Aztec Code',
};

const byIdentifier: Readonly<Record<string, string>> = {
  ']C1': 'GS1-128',
  ']E0': 'EAN-13',
  ']E1': 'EAN-13 with 2-digit add-on',
  ']E2': 'EAN-13 with 5-digit add-on',
  ']E3': 'EAN-13 with add-on',
  ']E4': 'EAN-8',
  ']Q3': 'QR Code (GS1)',
  ']Q4': 'QR Code (GS1, ECI)',
  ']d2': 'Data Matrix (GS1)',
  ']d5': 'Data Matrix (GS1, ECI)',
};

const CODE = /^[A-Za-z]$/;
const MODIFIER = /^[0-9A-Za-z]$/;

/** A readable name for a well-formed identifier (`]C0` → `Code 128`); `Unknown symbology` otherwise. */
export function symbologyName(identifier: string): string {
  return byIdentifier[identifier] ?? byCode[identifier.charAt(1)] ?? 'Unknown symbology';
}

/** True when `identifier` is exactly `]` + a code letter + a modifier character. */
export function isAimIdentifier(identifier: string): boolean {
  return (
    identifier.length === 3 &&
    identifier.charAt(0) === ']' &&
    CODE.test(identifier.charAt(1)) &&
    MODIFIER.test(identifier.charAt(2))
  );
}

/**
 * Splits a leading AIM identifier off `input`.
 * - No leading `]`: no prefix, `data` is the input unchanged.
 * - `]` followed by fewer than two characters: rejected (`aim_truncated`).
 * - `]` followed by a character that is not a code letter, or a modifier that is not a digit or letter:
 *   rejected (`aim_malformed`); data starting with a literal `]` cannot be told from a broken prefix.
 */
export function parseAim(input: string): AimResult {
  if (!input.startsWith(']')) return { ok: true, data: input };
  if (input.length < 3) return reject('aim_truncated', 'AIM symbology identifier is cut short (needs "]" and two characters)');
  const symbology = input.slice(0, 3);
  if (!isAimIdentifier(symbology)) {
    return reject('aim_malformed', 'AIM symbology identifier is malformed (expected "]", a letter and a modifier character)');
  }
  return { ok: true, symbology, name: symbologyName(symbology), data: input.slice(3) };
}
