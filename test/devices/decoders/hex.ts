// Test fixtures are written as hex dumps, the way a capture tool (usbhid-dump, hidraw reads, WebHID
// logs) prints them: bytes as two hex digits separated by whitespace; `//` comments are ignored.

export function hex(dump: string): Uint8Array {
  const digits = dump
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, ''))
    .join(' ')
    .trim();
  if (digits === '') return new Uint8Array(0);
  return Uint8Array.from(digits.split(/\s+/), (pair) => {
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) throw new Error(`bad hex byte in fixture: ${pair}`);
    return Number.parseInt(pair, 16);
  });
}

export function reports(lines: readonly string[]): Uint8Array[] {
  return lines.map(hex);
}

/** A deterministic PRNG (mulberry32) for the garbage tables: same bytes on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
