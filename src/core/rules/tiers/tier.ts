import type { Selectable } from 'kysely';
import type { TiersTable } from '../../storage/schema';

/** A level of the program, reached by points earned in the last `windowDays` days (null: ever). */
export interface TierRecord {
  id: number;
  publicId: string;
  vendorId: number;
  name: string;
  summary: string;
  description: string;
  threshold: number;
  windowDays: number | null;
  createdAt: number;
  updatedAt: number;
}

export function toTierRecord(row: Selectable<TiersTable> & { public_id: string }): TierRecord {
  return {
    id: row.id,
    publicId: row.public_id,
    vendorId: row.vendor_id,
    name: row.name,
    summary: row.summary,
    description: row.description,
    threshold: row.threshold,
    windowDays: row.window_days,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
