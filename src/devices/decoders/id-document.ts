// Identity documents are not identifications here (README "Check-in": the app code, a card, an
// email, a phone, a cedula or a passport number typed by staff). A driver's licence's PDF417
// (AAMVA DL/ID: `@`, LF, RS, CR, then `ANSI ` and the issuer's 6-digit number) holds the holder's
// name, birth date and address: it is refused as what it is, not looked up as a barcode.

/** True when a scanned line is (or starts with the header of) an AAMVA driver's licence or ID card. */
export function isAamvaIdDocument(line: string): boolean {
  // eslint-disable-next-line no-control-regex -- RS (0x1e) separates the header's parts
  return /^@?[\s\x1e]*(ANSI |AAMVA)\d{6}/.test(line);
}

/**
 * True for a line an AAMVA licence's body is made of: a data element (`DCSDOE`, `DACJOHN`,
 * `DBB19800101`: D and two letters, or a jurisdiction's Z and two letters) or a subfile's
 * designator (`DL00410278…`). Only meaningful right after a licence's header (IdDocumentRest).
 */
export function isAamvaBodyLine(line: string): boolean {
  return /^([DZ][A-Z]{2}\S|(DL|ID)\d{8})/.test(line);
}

/** How long after a licence's last line the next one may still be its rest (a wedge types ~1 line a few ms). */
export const ID_DOCUMENT_REST_MS = 1_000;

/**
 * A licence read through a keyboard wedge arrives as one line per data element (its LFs are
 * Enters): only the first holds the header and is refused as `id_document`; the rest — the
 * holder's name, birth date, address — would each be looked up (and, finding nobody, logged) as a
 * barcode. This remembers, for one source, that a licence was just refused, and tells its body
 * lines that follow within ID_DOCUMENT_REST_MS of each other. Times are the caller's.
 */
export class IdDocumentRest {
  #until = Number.NEGATIVE_INFINITY;

  /** A licence's header was refused at `at`. */
  opened(at: number): void {
    this.#until = at + ID_DOCUMENT_REST_MS;
  }

  /** Whether `line`, read at `at`, is the rest of the licence refused just before (then it keeps the window open). */
  holds(line: string, at: number): boolean {
    if (at > this.#until || !isAamvaBodyLine(line)) return false;
    this.#until = at + ID_DOCUMENT_REST_MS;
    return true;
  }
}
