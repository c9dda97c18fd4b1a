import { ServiceError } from './errors';

// Money is integer minor units inside (cents); the legacy interface shows decimal major units.

/** Minor units to the decimal amount the interface shows (2050 -> 20.5 in USD). */
export function toMajorUnits(minor: number, digits: number): number {
  return minor / 10 ** digits;
}

/** Relative error of a decimal amount read as a double and scaled by a power of ten (8 ulps). */
const FLOAT_NOISE = 8 * Number.EPSILON;

/** A decimal amount to whole minor units; amounts finer than the currency's smallest unit are refused. */
export function toMinorUnits(major: number, digits: number, field: string): number {
  const scaled = major * 10 ** digits;
  const minor = Math.round(scaled);
  // Float noise (0.1 + 0.2) is forgiven: a few units in the last place of the scaled amount, so
  // 0.001 is refused at any size (10000000.001 too), while 0.30000000000000004 is 0.30.
  if (!Number.isFinite(major) || Math.abs(scaled - minor) > Math.abs(scaled) * FLOAT_NOISE || !Number.isSafeInteger(minor)) {
    throw new ServiceError('validation_failed', `${field} must be an amount with at most ${digits} decimals.`, field);
  }
  return minor;
}
