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
 * Fallback when the country has no Spanish locale in ICU (a Spanish screen of a program in Germany):
 * the currency's country, as the nearest sign of how the program writes amounts. USD is the United
 * States' (es-US: "$12.50"); EUR is Spain's.
 */
const SPANISH_LOCALE_OF_CURRENCY: Record<string, string> = {
  USD: 'es-US',
  EUR: 'es-ES',
  MXN: 'es-MX',
  GTQ: 'es-GT',
  HNL: 'es-HN',
  NIO: 'es-NI',
  CRC: 'es-CR',
  PAB: 'es-PA',
  CUP: 'es-CU',
  DOP: 'es-DO',
  COP: 'es-CO',
  VES: 'es-VE',
  PEN: 'es-PE',
  BOB: 'es-BO',
  CLP: 'es-CL',
  ARS: 'es-AR',
  PYG: 'es-PY',
  UYU: 'es-UY',
};

const spanishOfCountry = new Map<string, string | null>();

/**
 * "EC" -> "es-EC" when this runtime's ICU has Spanish as Ecuador writes it, else null. V8's
 * supportedLocalesOf accepts any es-XX (it falls back to plain es, Spain's "1234,50 US$"), so the
 * locale must also resolve to itself.
 */
function spanishLocaleOfCountry(country: string): string | null {
  const code = country.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return null;
  let locale = spanishOfCountry.get(code);
  if (locale === undefined) {
    const tag = `es-${code}`;
    locale = Intl.NumberFormat.supportedLocalesOf(tag).length > 0 && new Intl.NumberFormat(tag).resolvedOptions().locale === tag ? tag : null;
    spanishOfCountry.set(code, locale);
  }
  return locale;
}

/**
 * The locale numbers are written in: English as it is; Spanish as the program's country writes
 * them (es-EC: "$1.234,50"), else as its currency's country does (the table above), else Latin
 * America's (es-419: "1,200"), never Spain's by default ("12,50 US$" on a screen in Quito or Miami).
 */
export function numberLocale(language: string, currency: string | null = null, country: string | null = null): string {
  if (language !== 'es') return language;
  return (country ? spanishLocaleOfCountry(country) : null) ?? (currency ? SPANISH_LOCALE_OF_CURRENCY[currency.toUpperCase()] : undefined) ?? 'es-419';
}

/** The decimal mark amounts are written with (numberLocale): "," for es-ES or es-EC, "." for en or es-MX. */
export function decimalMark(language: string, currency: string | null = null, country: string | null = null): string {
  return new Intl.NumberFormat(numberLocale(language, currency, country)).formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
}

/**
 * A country's own money that its ICU locale writes by the code, not by the sign its shops use:
 * Panama's dollar, legal tender beside the balboa, priced "$1,234.50" there (es-PA writes
 * "USD 1,234.50"; its balboa is "B/. 1,234.50" as it should be). Such an amount takes the
 * currency's narrow symbol. A foreign dollar elsewhere keeps its code (es-MX "USD 1,234.50": "$"
 * is the peso in Mexico); Ecuador, El Salvador and Puerto Rico already write "$".
 */
const WRITTEN_BY_SIGN_IN_COUNTRY: Record<string, readonly string[]> = { PA: ['USD'] };

function currencyDisplay(locale: string, currency: string): 'symbol' | 'narrowSymbol' {
  const country = locale.split('-')[1] ?? '';
  return WRITTEN_BY_SIGN_IN_COUNTRY[country]?.includes(currency.toUpperCase()) ? 'narrowSymbol' : 'symbol';
}

/**
 * 12.5, "USD", "es", "EC" -> "$12,50" (numberLocale); without a currency code, the number with two
 * decimals. The decimals are the ledger's (minorUnitDigits), not the browser's ICU's, which may disagree.
 */
export function formatMoney(amount: number, currency: string | null, language: string, country: string | null = null): string {
  const digits = currencyDigits(currency);
  const locale = numberLocale(language, currency, country);
  if (!currency) return new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
  return new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: currencyDisplay(locale, currency), minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
}

/**
 * 1200 -> "1,200" (en, es-419, es-MX), "1.200" (es-EC, or a peso or euro program's Spanish): points
 * are whole numbers, written as the program's amounts are (numberLocale).
 */
export function formatPoints(points: number, language: string, currency: string | null = null, country: string | null = null): string {
  return new Intl.NumberFormat(numberLocale(language, currency, country), { maximumFractionDigits: 0 }).format(points);
}

/** Decimals of a currency as the ledger counts it (2 when unknown or without a code). */
export function currencyDigits(code: string | null): number {
  return code ? minorUnitDigits(code) : 2;
}

/** A balance as the screens show it: "−6" for a negative one (U+2212, the sign the history uses), never Intl's hyphen "-6". */
export function withMinusSign(amount: number, format: (magnitude: number) => string): string {
  return amount < 0 ? `−${format(-amount)}` : format(amount);
}

/**
 * A day ("2026-11-09") on a chart's axis, short: "11-09" in English, "09/11" in Spanish — day first,
 * as Ecuador and every Spanish-speaking country write dates ("11-09" read there as 11 September).
 */
export function formatAxisDay(day: string, language: string): string {
  const [, month = '', date = ''] = day.split('-');
  return language === 'es' ? `${date}/${month}` : `${month}-${date}`;
}
