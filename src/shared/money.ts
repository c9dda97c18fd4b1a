import { ServiceError } from './errors';

// Money is integer minor units inside (cents); the legacy interface shows decimal major units.

/** Minor units to the decimal amount the interface shows (2050 -> 20.5 in USD). */
export function toMajorUnits(minor: number, digits: number): number {
  return minor / 10 ** digits;
}

/** A decimal amount to whole minor units; amounts finer than the currency's smallest unit are refused. */
export function toMinorUnits(major: number, digits: number, field: string): number {
  const scaled = major * 10 ** digits;
  const minor = Math.round(scaled);
  // Float noise (0.1 + 0.2) is forgiven relative to the amount, so 0.001 and 1e-9 are both refused.
  if (!Number.isFinite(major) || Math.abs(scaled - minor) > Math.abs(scaled) * 1e-9 || !Number.isSafeInteger(minor)) {
    throw new ServiceError('validation_failed', `${field} must be an amount with at most ${digits} decimals.`, field);
  }
  return minor;
}
