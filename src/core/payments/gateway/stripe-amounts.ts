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
 * An amount in the ledger's minor units (minorUnitDigits: HUF and COP in whole units, as tills
 * count them) as Stripe's `amount` field takes it (HUF and COP in hundredths). An amount Stripe's
 * units cannot hold exactly is refused, never rounded.
 */
export function toStripeAmount(amountMinor: number, currency: string): number {
  const code = currency.toUpperCase();
  const shift = stripeDigits(code) - minorUnitDigits(code);
  if (shift >= 0) return amountMinor * 10 ** shift;
  const divisor = 10 ** -shift;
  if (amountMinor % divisor !== 0) throw new PaymentGatewayError(`stripe: ${amountMinor} minor units of ${code} cannot be charged in Stripe's units`, false);
  return amountMinor / divisor;
}
