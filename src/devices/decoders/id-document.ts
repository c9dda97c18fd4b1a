// Identity documents are not identifications here (README "Check-in": the app code, a card, an
// email, a phone, a cedula or a passport number typed by staff). A driver's licence's PDF417
// (AAMVA DL/ID: `@`, LF, RS, CR, then `ANSI ` and the issuer's 6-digit number) holds the holder's
// name, birth date and address: it is refused as what it is, not looked up as a barcode.

/** True when a scanned line is (or starts with the header of) an AAMVA driver's licence or ID card. */
export function isAamvaIdDocument(line: string): boolean {
  // eslint-disable-next-line no-control-regex -- RS (0x1e) separates the header's parts
  return /^@?[\s\x1e]*(ANSI |AAMVA)\d{6}/.test(line);
}
