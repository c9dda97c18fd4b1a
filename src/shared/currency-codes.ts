// ISO 4217 codes in circulation, as the runtime's ICU data knows them (no package to keep updated).
const ISO_CODES = new Set(Intl.supportedValuesOf('currency'));

export function isIsoCurrencyCode(code: string): boolean {
  return ISO_CODES.has(code);
}

/**
 * Digits after the decimal point in the currency's minor unit (USD 2, JPY 0, KWD 3): the unit every
 * stored amount of a cash-like currency is counted in, so it must never change under a node's
 * data. Pinned here rather than read from the runtime's ICU (a Node or Electron upgrade, or the
 * screens' Chromium, could otherwise rescale every balance 10–1,000×). The values are CLDR's, as
 * ICU gave them when pinned (2026-12): the digits people pay with. Where ISO 4217 lists more (HUF,
 * IDR, COP, PKR, IQD…: units no till counts), CLDR's are kept; amounts sent to a gateway are
 * converted there. A code not listed has 2.
 */
export function minorUnitDigits(code: string): number {
  return MINOR_UNIT_DIGITS[code] ?? 2;
}

const MINOR_UNIT_DIGITS: Readonly<Record<string, number>> = {
  AFN: 0, ALL: 0, BHD: 3, BIF: 0, CLP: 0, COP: 0, DJF: 0, GNF: 0, HUF: 0, IDR: 0, IQD: 0, IRR: 0, ISK: 0,
  JOD: 3, JPY: 0, KMF: 0, KPW: 0, KRW: 0, KWD: 3, LAK: 0, LBP: 0, LYD: 3, MGA: 0, MMK: 0, OMR: 3, PKR: 0,
  PYG: 0, RWF: 0, SLL: 0, SOS: 0, SYP: 0, TND: 3, UGX: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0, YER: 0,
};
