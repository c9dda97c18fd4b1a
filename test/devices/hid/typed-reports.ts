// Text as a keyboard-emulation reader types it on a US layout: one 8-byte boot report per key
// down (shift in byte 0 when needed) and an all-zero report for the key up. `\n` is Enter.

const UNSHIFTED = 'abcdefghijklmnopqrstuvwxyz1234567890';
const SYMBOLS: Record<string, [number, boolean]> = {
  '\n': [0x28, false],
  ' ': [0x2c, false],
  '-': [0x2d, false],
  '=': [0x2e, false],
  ';': [0x33, false],
  '/': [0x38, false],
  '%': [0x22, true],
  '^': [0x23, true],
  '?': [0x38, true],
  '+': [0x2e, true],
};

export function typedOnUsKeyboard(text: string): Uint8Array[] {
  const reports: Uint8Array[] = [];
  for (const char of text) {
    const lower = char.toLowerCase();
    const index = UNSHIFTED.indexOf(lower);
    const [usage, shift] = index >= 0 ? [0x04 + index, char !== lower] : (SYMBOLS[char] ?? [0, false]);
    if (usage === 0) throw new Error(`no key for ${JSON.stringify(char)}`);
    reports.push(Uint8Array.from([shift ? 0x02 : 0, 0, usage, 0, 0, 0, 0, 0]), new Uint8Array(8));
  }
  return reports;
}
