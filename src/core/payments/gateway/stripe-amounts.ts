import { minorUnitDigits } from '../../../shared/currency-codes';
import { PaymentGatewayError } from './payment-gateway';

// Stripe counts amounts in its own minor units per currency (docs.stripe.com/currencies): most
// currencies in hundredths, these in whole units or thousandths. ISK is whole but sent in
// hundredths (a multiple of 100), as Stripe asks for compatibility.
const STRIPE_WHOLE = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const STRIPE_THOUSANDTHS = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

function stripeDigits(code: string): number {
  if (STRIPE_WHOLE.has(code)) return 0;
  if (STRIPE_THOUSANDTHS.has(code)) return 3;
  return 2;
}

/**
 * The ledger minor units a card charge in `currency` must be a multiple of: 10 where Stripe counts
 * thousandths but asks for a last digit of 0 (BHD, JOD, KWD, OMR, TND: "round amounts to the
 * nearest ten", docs.stripe.com/currencies) or counts hundredths where the ledger counts thousandths
 * (LYD); 1 elsewhere.
 */
export function cardAmountStep(currency: string): number {
  const code = currency.toUpperCase();
  const chargeable = STRIPE_THOUSANDTHS.has(code) ? 2 : stripeDigits(code);
  return 10 ** Math.max(0, minorUnitDigits(code) - chargeable);
}

/**
 * An amount in the ledger's minor units (minorUnitDigits: HUF and COP in whole units, as tills
 * count them) as Stripe's `amount` field takes it (HUF and COP in hundredths). An amount Stripe
 * would refuse (not a multiple of cardAmountStep) is refused here too, never rounded: the use cases
 * refuse it first, with a 400.
 */
export function toStripeAmount(amountMinor: number, currency: string): number {
  const code = currency.toUpperCase();
  if (amountMinor % cardAmountStep(code) !== 0) throw new PaymentGatewayError(`stripe: ${amountMinor} minor units of ${code} cannot be charged in Stripe's units`, false);
  const shift = stripeDigits(code) - minorUnitDigits(code);
  if (shift >= 0) return amountMinor * 10 ** shift;
  return amountMinor / 10 ** -shift;
}
