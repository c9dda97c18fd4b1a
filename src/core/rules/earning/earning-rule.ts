import { ServiceError } from '../../../shared/errors';
import type { ObjectStatus } from '../../../shared/schemas/common';
import type { EarningRuleRow } from './earning-rule-store';

export const ROUNDINGS = ['floor', 'round', 'ceil'] as const;
export type Rounding = (typeof ROUNDINGS)[number];

/** Awards `points` per `perAmount` of subtotal, rounded as `rounding` says, at most `maxAward` per order. */
export interface EarningRuleRecord {
  id: number;
  publicId: string;
  vendorId: number;
  currencyId: number;
  /** The `curr_` id of the loyalty currency the points are in. */
  currencyPublicId: string;
  name: string;
  points: number;
  /** Subtotal per award, in minor units of the vendor's quick-pay currency (100 = 1.00 USD). */
  perAmount: number;
  /** Digits of that currency's minor unit, to show perAmount in major units. */
  moneyDigits: number;
  rounding: Rounding;
  maxAward: number | null;
  startsAt: number | null;
  endsAt: number | null;
  status: ObjectStatus;
  createdAt: number;
  updatedAt: number;
}

export function toEarningRuleRecord(row: EarningRuleRow & { public_id: string }, moneyDigits: number): EarningRuleRecord {
  return {
    id: row.id,
    publicId: row.public_id,
    vendorId: row.vendor_id,
    currencyId: row.currency_id,
    currencyPublicId: row.currency_public_id ?? '',
    name: row.name,
    points: row.points,
    perAmount: row.per_amount,
    moneyDigits,
    rounding: row.rounding as Rounding,
    maxAward: row.max_award,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    status: row.status as ObjectStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** floor, round or ceil, in any letter case. */
export function parseRounding(value: string): Rounding {
  const lower = value.trim().toLowerCase();
  if (!(ROUNDINGS as readonly string[]).includes(lower)) {
    throw new ServiceError('validation_failed', `rounding must be one of ${ROUNDINGS.join(', ')}.`, 'rounding');
  }
  return lower as Rounding;
}
