import type { ObjectStatus } from '../../../shared/schemas/common';
import type { SpendingRuleRow } from './spending-rule-store';

/** A reward: what a customer can redeem for `cost` units of a loyalty currency. */
export interface SpendingRuleRecord {
  id: number;
  publicId: string;
  vendorId: number;
  currencyId: number;
  /** The `curr_` id of the loyalty currency the cost is in. */
  currencyPublicId: string;
  name: string;
  summary: string;
  description: string;
  /** Whole units of the loyalty currency (points). */
  cost: number;
  startsAt: number | null;
  endsAt: number | null;
  status: ObjectStatus;
  createdAt: number;
  updatedAt: number;
}

export function toSpendingRuleRecord(row: SpendingRuleRow): SpendingRuleRecord {
  return {
    id: row.id,
    publicId: row.public_id,
    vendorId: row.vendor_id,
    currencyId: row.currency_id,
    currencyPublicId: row.currency_public_id ?? '',
    name: row.name,
    summary: row.summary,
    description: row.description,
    cost: row.cost,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    status: row.status as ObjectStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
