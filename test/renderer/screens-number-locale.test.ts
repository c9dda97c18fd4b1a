import { describe, expect, it } from 'vitest';
import { formatMoney, formatPoints, numberLocale } from '../../src/renderer/src/format';

// A Spanish screen writes amounts as the program's country does (its currency says which), else as
// Latin America does (es-419): never Spain's "12,50 US$" for a program in the Americas.
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
