import { minorUnitDigits } from '../../shared/currency-codes';

/** 93784 -> "1 d 2 h 3 min 4 s"; leading zero units are left out. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const parts: Array<[number, string]> = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor((s % 86400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'min'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([value]) => value > 0);
  if (first < 0) return '0 s';
  return parts
    .slice(first)
    .map(([value, unit]) => `${value} ${unit}`)
    .join(' ');
}

/**
 * 12.5, "USD", "es" -> "12,50 US$"; without a currency code, the number with two decimals. The
 * decimals are the ledger's (minorUnitDigits), not the browser's ICU's, which may disagree.
 */
export function formatMoney(amount: number, currency: string | null, language: string): string {
  const digits = currencyDigits(currency);
  if (!currency) return new Intl.NumberFormat(language, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
  return new Intl.NumberFormat(language, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
}

/** 1200 -> "1,200" (en) / "1200" (es): points are whole numbers. */
export function formatPoints(points: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 0 }).format(points);
}

/** Decimals of a currency as the ledger counts it (2 when unknown or without a code). */
export function currencyDigits(code: string | null): number {
  return code ? minorUnitDigits(code) : 2;
}

/** A balance as the screens show it: "−6" for a negative one (U+2212, the sign the history uses), never Intl's hyphen "-6". */
export function withMinusSign(amount: number, format: (magnitude: number) => string): string {
  return amount < 0 ? `−${format(-amount)}` : format(amount);
}
