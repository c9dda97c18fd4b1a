import { ServiceError } from '../../../shared/errors';
import { toMajorUnits } from '../../../shared/money';
import { cardAmountStep } from './stripe-amounts';

/**
 * Refuses, before any card is charged, an amount the processor would refuse: KWD 12.345 (Stripe
 * takes three-decimal amounts only in steps of 0.010). 400 validation_failed on `field`; the
 * processor's refusal would have been a 503 with the charge left for the reconciliation job.
 */
export function refuseUnchargeableAmount(amountMinor: number, currency: { code: string; digits: number }, field: string): void {
  const step = cardAmountStep(currency.code);
  if (amountMinor % step === 0) return;
  const shown = toMajorUnits(step, currency.digits).toFixed(currency.digits);
  throw new ServiceError('validation_failed', `${field} must be a multiple of ${shown}: ${currency.code} amounts paid by card are charged in steps of ${shown}.`, field);
}

/** The largest chargeable amount at most `amountMinor` (an auto reload saved before the rule). */
export function chargeableAtMost(amountMinor: number, currencyCode: string): number {
  const step = cardAmountStep(currencyCode);
  return amountMinor - (amountMinor % step);
}
