import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { toMajorUnits, toMinorUnits } from '../../../shared/money';
import type { Engine } from '../../engine';
import { programData } from '../../program-cache/program-data';
import type { DB } from '../../storage/schema';

/**
 * Defaults of the program's largest eGift and largest single reload, in minor units of its quick-pay
 * currency: 1,000.00 USD or EUR, ¥100,000, 100.000 KWD. A fixed count of minor units scales each
 * currency by its minor digits, which keeps the default within an order of magnitude or two of the
 * same value in most currencies without an exchange-rate table that would go stale; a program whose
 * currency is far off (VND, IDR: ₫100,000 is a few dollars) sets its own.
 */
export const DEFAULT_EGIFT_MAX_MINOR = 100_000;
export const DEFAULT_RELOAD_MAX_MINOR = 100_000;

/** The limits in force, minor units of the quick-pay currency. */
export interface PaymentLimits {
  egiftMax: number;
  reloadMax: number;
}

/** The vendor row's limits, each its default when not set. */
export function limitsOf(vendor: { egift_max_amount: number | null; reload_max_amount: number | null }): PaymentLimits {
  return {
    egiftMax: vendor.egift_max_amount === null ? DEFAULT_EGIFT_MAX_MINOR : Number(vendor.egift_max_amount),
    reloadMax: vendor.reload_max_amount === null ? DEFAULT_RELOAD_MAX_MINOR : Number(vendor.reload_max_amount),
  };
}

/** The program's limits, from the program cache: a change is in force at the next call (program-data.ts). */
export async function paymentLimitsOf(engine: Engine, vendorId: number, db: Kysely<DB> = engine.db): Promise<PaymentLimits> {
  return limitsOf((await programData(engine.db, vendorId, db)).vendor);
}

/**
 * A positive amount sent in major units, as whole minor units at most `limitMinor`: above it is
 * 400 validation_failed on `field`, naming the limit in the currency's terms ("at most 1000.00 USD").
 */
export function minorWithin(amount: number, currency: { code: string; digits: number }, limitMinor: number, field: string): number {
  const refuse = () => new ServiceError('validation_failed', `${field} must be at most ${toMajorUnits(limitMinor, currency.digits).toFixed(currency.digits)} ${currency.code}.`, field);
  // Checked before conversion too, so a huge amount is refused for its size, not its decimals.
  if (amount * 10 ** currency.digits > limitMinor + 0.5) throw refuse();
  const minor = toMinorUnits(amount, currency.digits, field);
  if (minor > limitMinor) throw refuse();
  return minor;
}
