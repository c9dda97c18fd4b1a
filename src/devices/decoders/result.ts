// Every decoder answers with a value, never an exception: device bytes are untrusted input, and a
// reader that sends garbage must not take the process down. A rejection carries a stable machine code
// and a fixed human-readable reason. Reasons never echo the input: a rejected swipe or barcode may
// hold a card number, and rejections end up in logs.

export interface Reject<Code extends string = string> {
  ok: false;
  code: Code;
  reason: string;
}

export function reject<Code extends string>(code: Code, reason: string): Reject<Code> {
  return { ok: false, code, reason };
}

/** Bytes as a device delivers them: node-hid gives a Buffer, WebHID a DataView, tests an array. */
export type ReportBytes = Uint8Array | readonly number[];

export function toBytes(report: ReportBytes): Uint8Array {
  return report instanceof Uint8Array ? report : Uint8Array.from(report, (b) => b & 0xff);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decoded barcode bytes to text: UTF-8 when the bytes are valid UTF-8 (QR codes usually are), else
 * one character per byte (ISO 8859-1), which every 1D symbology's data fits.
 */
export function bytesToText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    let text = '';
    for (const byte of bytes) text += String.fromCharCode(byte);
    return text;
  }
}
