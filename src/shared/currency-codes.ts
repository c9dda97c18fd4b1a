// ISO 4217 codes in circulation, as the runtime's ICU data knows them (no package to keep updated).
const ISO_CODES = new Set(Intl.supportedValuesOf('currency'));

export function isIsoCurrencyCode(code: string): boolean {
  return ISO_CODES.has(code);
}

/** Digits after the decimal point in the currency's minor unit (USD 2, JPY 0, KWD 3). */
export function minorUnitDigits(code: string): number {
  let digits = DIGITS.get(code);
  if (digits === undefined) {
    // Building a NumberFormat costs tens of microseconds; hot paths ask this on every call.
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    DIGITS.set(code, digits);
  }
  return digits;
}

const DIGITS = new Map<string, number>();
