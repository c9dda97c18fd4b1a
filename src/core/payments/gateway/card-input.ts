import cardValidator from 'card-validator';
import type { CardDetails, InvalidCardReason } from './payment-gateway';

// Card input checks every adapter runs before talking to its processor: the number (Luhn and a
// known brand, via card-validator), the expiry (a real month, not in the past by the engine's
// clock) and the CVV (the brand's length). Nothing here keeps or logs the values.

export interface CheckedCard {
  /** Digits only. */
  digits: string;
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  cvv: string;
  postalCode: string | null;
  name: string | null;
}

export type CardCheck = { ok: true; card: CheckedCard } | { ok: false; reason: InvalidCardReason; field: 'number' | 'expiry_month' | 'expiry_year' | 'cvv' };

/** Latest expiry year accepted: this many years ahead of the clock. */
const MAX_YEARS_AHEAD = 20;

export function checkCard(input: CardDetails, now: number): CardCheck {
  const digits = String(input.number ?? '').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return { ok: false, reason: 'invalid_number', field: 'number' };
  const verdict = cardValidator.number(digits);
  if (!verdict.isValid || !verdict.card) return { ok: false, reason: 'invalid_number', field: 'number' };

  const monthText = String(input.expiryMonth ?? '').trim();
  const yearText = String(input.expiryYear ?? '').trim();
  if (!/^\d{1,2}$/.test(monthText)) return { ok: false, reason: 'invalid_expiry', field: 'expiry_month' };
  const month = Number(monthText);
  if (month < 1 || month > 12) return { ok: false, reason: 'invalid_expiry', field: 'expiry_month' };
  if (!/^(\d{2}|\d{4})$/.test(yearText)) return { ok: false, reason: 'invalid_expiry', field: 'expiry_year' };
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  const today = new Date(now);
  const thisYear = today.getUTCFullYear();
  const thisMonth = today.getUTCMonth() + 1;
  // A card is good through the last day of its expiry month.
  if (year < thisYear || (year === thisYear && month < thisMonth) || year > thisYear + MAX_YEARS_AHEAD) {
    return { ok: false, reason: 'invalid_expiry', field: year < thisYear || year > thisYear + MAX_YEARS_AHEAD ? 'expiry_year' : 'expiry_month' };
  }

  const cvv = String(input.cvv ?? '').trim();
  if (!/^\d+$/.test(cvv) || !cardValidator.cvv(cvv, verdict.card.code.size).isValid) return { ok: false, reason: 'invalid_cvv', field: 'cvv' };

  const postal = typeof input.postalCode === 'string' ? input.postalCode.trim() : '';
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  return {
    ok: true,
    card: {
      digits,
      brand: verdict.card.niceType,
      last4: digits.slice(-4),
      expiryMonth: month,
      expiryYear: year,
      cvv,
      postalCode: postal === '' ? null : postal,
      name: name === '' ? null : name,
    },
  };
}
