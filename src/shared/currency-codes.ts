// ISO 4217 codes in circulation, as the runtime's ICU data knows them (no package to keep updated).
const ISO_CODES = new Set(Intl.supportedValuesOf('currency'));

export function isIsoCurrencyCode(code: string): boolean {
  return ISO_CODES.has(code);
}

/** Digits after the decimal point in the currency's minor unit (USD 2, JPY 0, KWD 3). */
export function minorUnitDigits(code: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
}
