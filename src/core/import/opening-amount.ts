// Balances as the old system's export writes them, read exactly (no floating point): "12.50" of a
// currency with cents is 1250 minor units, "12.5" too, "12" is 1200; "12.505" has a digit the
// currency cannot hold and is refused rather than rounded (money would appear or vanish). Points
// are whole ("120"). Thousands separators are refused: "1,250" and "1.250" mean 1250 in one
// country and 1.25 in another. The decimal mark is the file's: a dot, or a comma in a file whose
// fields are separated by semicolons (spreadsheets write "12,50" there, which is why they use them).

/** The most one opening balance may be, in minor units (as a staff adjustment: 10,000,000.00). */
export const MAX_OPENING_AMOUNT = 1_000_000_000;

export type DecimalMark = '.' | ',';

export type AmountReading = { ok: true; minor: number } | { ok: false; reason: 'invalid_amount' | 'too_many_decimals' | 'amount_too_large'; message: string };

/** `text` (trimmed; empty is 0) in minor units of a currency with `digits` decimals, `mark` before its decimals. */
export function readOpeningAmount(text: string, digits: number, mark: DecimalMark = '.'): AmountReading {
  const value = text.trim();
  if (value === '') return { ok: true, minor: 0 };
  const match = (mark === ',' ? /^\+?(\d+)(?:,(\d*))?$/ : /^\+?(\d+)(?:\.(\d*))?$/).exec(value);
  const example = mark === ',' ? 'a comma before the decimals (12,50), as the file\'s semicolons say' : 'a dot before the decimals (12.50)';
  if (!match) return { ok: false, reason: 'invalid_amount', message: `"${value}" is not an amount: write digits with ${example}, no thousands separators, no currency sign, nothing negative.` };
  const [, whole, fraction = ''] = match;
  const decimals = fraction.replace(/0+$/, '');
  if (decimals.length > digits) {
    return { ok: false, reason: 'too_many_decimals', message: digits === 0 ? `"${value}" has decimals: this balance is counted in whole units.` : `"${value}" has more than ${digits} decimals.` };
  }
  const minor = Number(whole) * 10 ** digits + (decimals === '' ? 0 : Number(decimals.padEnd(digits, '0')));
  if (!Number.isSafeInteger(minor) || minor > MAX_OPENING_AMOUNT) return { ok: false, reason: 'amount_too_large', message: `"${value}" is more than one opening balance may be.` };
  return { ok: true, minor };
}
