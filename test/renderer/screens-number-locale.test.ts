import { describe, expect, it } from 'vitest';
import { formatMoney, formatPoints, numberLocale } from '../../src/renderer/src/format';

// Without the program's country (or one ICU has no Spanish of), a Spanish screen writes amounts as its
// currency's country does, else as Latin America does (es-419): never Spain's "12,50 US$" for a
// program in the Americas.
describe('screens number locale', () => {
  it('English stays English; Spanish follows the program currency, else es-419', () => {
    expect(numberLocale('en', 'USD')).toBe('en');
    expect(numberLocale('es', 'USD')).toBe('es-US');
    expect(numberLocale('es', 'mxn')).toBe('es-MX');
    expect(numberLocale('es', 'ARS')).toBe('es-AR');
    expect(numberLocale('es', 'EUR')).toBe('es-ES');
    expect(numberLocale('es', 'JPY')).toBe('es-419');
    expect(numberLocale('es', null)).toBe('es-419');
  });

  it('money in Spanish: a US program "$12.50", a Mexican one "$1,234.50", an Argentine one "$ 1.234,50", a euro one as Spain', () => {
    expect(formatMoney(12.5, 'USD', 'es')).toBe('$12.50');
    expect(formatMoney(1234.5, 'USD', 'es')).toBe('$1,234.50');
    expect(formatMoney(1234.5, 'MXN', 'es')).toBe('$1,234.50');
    expect(formatMoney(1234.5, 'ARS', 'es')).toMatch(/^\$\s1\.234,50$/);
    expect(formatMoney(12.5, 'EUR', 'es')).toMatch(/^12,50\s€$/);
    // Unknown to the table: Latin America's way, the code before the amount.
    expect(formatMoney(1234.5, 'GBP', 'es')).toMatch(/1,234\.50/);
    expect(formatMoney(12.5, 'USD', 'en')).toBe('$12.50');
  });

  it('points and counts in Spanish group as the program country does (1,200 by default, not Spain\'s 1200)', () => {
    expect(formatPoints(1200, 'es')).toBe('1,200');
    expect(formatPoints(1200, 'es', 'USD')).toBe('1,200');
    expect(formatPoints(1200, 'es', 'CLP')).toBe('1.200');
    expect(formatPoints(1200, 'en')).toBe('1,200');
  });
});

// The program's country (GET /app/terminal) comes first: dollar programs in Ecuador, the United States
// and El Salvador write the same dollars differently. These strings are what Node's and Chromium's ICU
// both print (the e2e test screens-locale-country checks Ecuador's in Chromium).
describe('screens number locale by the program country', () => {
  it('Spanish follows the country when ICU has Spanish as that country writes it', () => {
    expect(numberLocale('es', 'USD', 'EC')).toBe('es-EC');
    expect(numberLocale('es', 'USD', 'ec')).toBe('es-EC');
    expect(numberLocale('es', 'USD', 'SV')).toBe('es-SV');
    expect(numberLocale('es', 'MXN', 'MX')).toBe('es-MX');
    expect(numberLocale('es', 'EUR', 'ES')).toBe('es-ES');
    // A dollar program in Spain writes dollars as Spain does, not as the United States.
    expect(numberLocale('es', 'USD', 'ES')).toBe('es-ES');
    // English stays as it is, whatever the country.
    expect(numberLocale('en', 'USD', 'EC')).toBe('en');
    expect(formatMoney(1234.5, 'USD', 'en', 'EC')).toBe('$1,234.50');
  });

  it('money: Ecuador "$1.234,50", the United States and Mexico "$1,234.50", Spain "1234,50 €"', () => {
    expect(formatMoney(1234.5, 'USD', 'es', 'EC')).toBe('$1.234,50');
    expect(formatMoney(1234.5, 'USD', 'es', 'US')).toBe('$1,234.50');
    expect(formatMoney(1234.5, 'MXN', 'es', 'MX')).toBe('$1,234.50');
    expect(formatMoney(1234.5, 'EUR', 'es', 'ES')).toMatch(/^1234,50\s€$/);
    expect(formatMoney(12.5, 'USD', 'es', 'PR')).toBe('$12.50');
    expect(formatPoints(1280, 'es', 'USD', 'EC')).toBe('1.280');
    expect(formatPoints(1280, 'es', 'USD', 'US')).toBe('1,280');
  });

  it('a country ICU has no Spanish of falls back to the currency, then es-419 (V8 accepts any es-XX, so resolving decides)', () => {
    // Germany: es-DE would silently be Spain's es; the euro says es-ES, which is the same, by the table.
    expect(numberLocale('es', 'EUR', 'DE')).toBe('es-ES');
    expect(numberLocale('es', 'USD', 'FR')).toBe('es-US');
    expect(formatMoney(1234.5, 'USD', 'es', 'FR')).toBe('$1,234.50');
    expect(numberLocale('es', 'JPY', 'JP')).toBe('es-419');
    expect(numberLocale('es', null, 'CA')).toBe('es-419');
    // Not a country code: ignored, never thrown on.
    expect(numberLocale('es', 'USD', 'Ecuador')).toBe('es-US');
    expect(numberLocale('es', 'USD', '')).toBe('es-US');
    // Puerto Rico, which ICU has, is taken as it is.
    expect(numberLocale('es', 'USD', 'PR')).toBe('es-PR');
  });
});
