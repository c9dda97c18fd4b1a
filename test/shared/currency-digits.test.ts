import { afterEach, describe, expect, it } from 'vitest';
import { cardAmountStep, toStripeAmount } from '../../src/core/payments/gateway/stripe-amounts';
import { minorUnitDigits } from '../../src/shared/currency-codes';
import { currencyDigits, formatMoney } from '../../src/renderer/src/format';

// Every stored amount of a cash-like currency is counted in its minor unit, so the digits must not
// move with the runtime's ICU (a Node, Electron or Chromium upgrade); Stripe counts some currencies
// in other units than the ledger does.

const realNumberFormat = Intl.NumberFormat;
afterEach(() => {
  Intl.NumberFormat = realNumberFormat;
});

describe('minor unit digits', () => {
  it('are pinned: USD 2, JPY 0, KWD 3, HUF 0, an unlisted code 2', () => {
    expect([minorUnitDigits('USD'), minorUnitDigits('JPY'), minorUnitDigits('KWD'), minorUnitDigits('HUF'), minorUnitDigits('EUR'), minorUnitDigits('XYZ')]).toEqual([2, 0, 3, 0, 2, 2]);
  });

  it('do not ask the runtime’s ICU, which may differ between Node and the screens’ Chromium', () => {
    // An ICU that gave every currency 4 digits would rescale nothing.
    Intl.NumberFormat = function (this: unknown, ...args: ConstructorParameters<typeof Intl.NumberFormat>) {
      const format = new realNumberFormat(...args);
      const options = format.resolvedOptions();
      return Object.assign(Object.create(format) as Intl.NumberFormat, { resolvedOptions: () => ({ ...options, minimumFractionDigits: 4, maximumFractionDigits: 4 }) });
    } as unknown as typeof Intl.NumberFormat;
    expect([minorUnitDigits('HUF'), currencyDigits('KWD'), currencyDigits('USD'), currencyDigits(null)]).toEqual([0, 3, 2, 2]);
  });

  it('are the ones the screens show', () => {
    expect(formatMoney(1990, 'HUF', 'en')).toMatch(/^HUF\s1,990$/);
    expect(formatMoney(5.125, 'KWD', 'en')).toMatch(/^KWD\s5\.125$/);
    expect(formatMoney(12.5, 'USD', 'en')).toBe('$12.50');
  });
});

describe('amounts sent to Stripe', () => {
  it('in Stripe’s units: hundredths where the ledger counts whole forints, krónur or pesos; others as they are', () => {
    expect(toStripeAmount(1250, 'USD')).toBe(1250);
    expect(toStripeAmount(500, 'jpy')).toBe(500);
    expect(toStripeAmount(5120, 'KWD')).toBe(5120);
    expect(toStripeAmount(1990, 'HUF')).toBe(199_000);
    expect(toStripeAmount(1990, 'ISK')).toBe(199_000);
    expect(toStripeAmount(25_000, 'COP')).toBe(2_500_000);
  });

  it('refuses an amount Stripe’s units cannot hold exactly instead of rounding it', () => {
    // LYD: thousandths in the ledger, hundredths at Stripe.
    expect(toStripeAmount(5120, 'LYD')).toBe(512);
    expect(() => toStripeAmount(5125, 'LYD')).toThrow(/cannot be charged/);
  });

  it('refuses a three-decimal amount whose last digit is not 0: Stripe asks for steps of ten thousandths', () => {
    for (const code of ['BHD', 'JOD', 'KWD', 'OMR', 'TND', 'kwd']) {
      expect(cardAmountStep(code)).toBe(10);
      expect(toStripeAmount(12_340, code)).toBe(12_340);
      expect(() => toStripeAmount(12_345, code)).toThrow(/cannot be charged/);
    }
    expect([cardAmountStep('LYD'), cardAmountStep('USD'), cardAmountStep('JPY'), cardAmountStep('HUF'), cardAmountStep('ISK'), cardAmountStep('XYZ')]).toEqual([10, 1, 1, 1, 1, 1]);
    expect(toStripeAmount(12_345, 'USD')).toBe(12_345);
  });
});
