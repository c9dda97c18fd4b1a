import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { DB, PromotionsTable } from '../storage/schema';

// A promotion: a code customers enter in the app (POST /vendor/promotion/award) for points in a
// loyalty currency, or for a reward (its cost in points, so it can be redeemed at once), inside an
// optional window, up to a total number of awards and a number per customer. ACTIVE or PAUSED.

export const PROMOTION_STATUSES = ['ACTIVE', 'PAUSED'] as const;
export type PromotionStatus = (typeof PROMOTION_STATUSES)[number];

export interface PromotionRecord {
  id: number;
  publicId: string;
  code: string;
  name: string;
  description: string;
  points: number | null;
  currencyPublicId: string | null;
  rewardPublicId: string | null;
  startsAt: number | null;
  endsAt: number | null;
  totalCap: number | null;
  perCustomerCap: number;
  awardedCount: number;
  status: PromotionStatus;
  createdAt: number;
  updatedAt: number;
}

/** Codes compare without case, spaces or dashes ("summer-25" is "SUMMER25"). */
export function codeKey(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export function parsePromotionStatus(value: string): PromotionStatus {
  const status = value.trim().toUpperCase();
  if (!(PROMOTION_STATUSES as readonly string[]).includes(status)) throw new ServiceError('validation_failed', 'status must be ACTIVE or PAUSED.', 'status');
  return status as PromotionStatus;
}

/** One promotion of the vendor with the public ids of its currency and reward; another vendor's is a 404. */
export async function loadPromotion(db: Kysely<DB>, vendorId: number, where: { publicId: string } | { id: number }): Promise<PromotionRecord> {
  let query = db
    .selectFrom('promotions as p')
    .leftJoin('currencies as c', 'c.id', 'p.currency_id')
    .leftJoin('spending_rules as r', 'r.id', 'p.reward_id')
    .selectAll('p')
    .select(['c.public_id as currency_public_id', 'r.public_id as reward_public_id'])
    .where('p.vendor_id', '=', vendorId);
  query = 'publicId' in where ? query.where('p.public_id', '=', where.publicId) : query.where('p.id', '=', where.id);
  const row = await query.executeTakeFirst();
  if (!row) throw new ServiceError('promotion_not_found', undefined, 'id');
  return toPromotionRecord(row);
}

export function toPromotionRecord(row: Selectable<PromotionsTable> & { currency_public_id: string | null; reward_public_id: string | null }): PromotionRecord {
  return {
    id: row.id,
    publicId: row.public_id,
    code: row.code,
    name: row.name,
    description: row.description,
    points: row.points === null ? null : Number(row.points),
    currencyPublicId: row.currency_public_id,
    rewardPublicId: row.reward_public_id,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    totalCap: row.total_cap,
    perCustomerCap: row.per_customer_cap,
    awardedCount: row.awarded_count,
    status: row.status as PromotionStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
