import { describe, expect, it } from 'vitest';
import { formatMoney, formatPoints, numberLocale } from '../../src/renderer/src/format';

// Panama: the US dollar is its money beside the balboa, and its shops write "$1,234.50"; ICU's
// es-PA writes the dollar by its code ("USD 1,234.50"). A Spanish screen of a Panama program writes
// the dollar's sign, the balboa as ICU does ("B/. 1,234.50"), and elsewhere nothing changes: a
// dollar in Mexico keeps its code ("$" is the peso there).
describe('screens number locale: Panama', () => {
  it('a dollar program in Panama writes "$1,234.50" in Spanish, as in English', () => {
    expect(numberLocale('es', 'USD', 'PA')).toBe('es-PA');
    expect(formatMoney(1234.5, 'USD', 'es', 'PA')).toBe('$1,234.50');
    expect(formatMoney(1234.5, 'usd', 'es', 'pa')).toBe('$1,234.50');
    expect(formatMoney(-12.5, 'USD', 'es', 'PA')).toBe('-$12.50');
    expect(formatMoney(1234.5, 'USD', 'en', 'PA')).toBe('$1,234.50');
    expect(formatPoints(1280, 'es', 'USD', 'PA')).toBe('1,280');
  });

  it('the balboa stays "B/.", and other countries keep their way of writing a dollar', () => {
    expect(formatMoney(1234.5, 'PAB', 'es', 'PA')).toMatch(/^B\/\.\s1,234\.50$/);
    expect(formatMoney(1234.5, 'PAB', 'es')).toMatch(/^B\/\.\s1,234\.50$/);
    expect(formatMoney(1234.5, 'USD', 'es', 'MX')).toMatch(/^USD\s1,234\.50$/);
    expect(formatMoney(1234.5, 'USD', 'es', 'EC')).toBe('$1.234,50');
    expect(formatMoney(1234.5, 'USD', 'es', 'SV')).toBe('$1,234.50');
  });
});
