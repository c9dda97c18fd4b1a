import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { BillingProfilesTable, DB } from '../../storage/schema';

export type BillingProfileRow = Selectable<BillingProfilesTable>;

/** Whose profile: a customer at one vendor. Every lookup is filtered by both. */
export interface ProfileOwner {
  vendorId: number;
  userId: number;
}

/** A billing profile as the engine hands it out: the token stays inside the engine. */
export interface BillingProfileRecord {
  id: number;
  vendorId: number;
  userId: number;
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  postalCode: string | null;
  name: string;
  description: string | null;
  isDefault: boolean;
  createdAt: number;
  updatedAt: number;
}

export function toBillingProfileRecord(row: BillingProfileRow): BillingProfileRecord {
  return {
    id: row.id,
    vendorId: row.vendor_id,
    userId: row.user_id,
    brand: row.brand,
    last4: row.last4,
    expiryMonth: row.expiry_month,
    expiryYear: row.expiry_year,
    postalCode: row.postal_code,
    name: row.name,
    description: row.description,
    isDefault: row.is_default === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The masked number apps show: "xxxx xxxx xxxx 4242" (only the last four digits are kept). */
export function maskedCard(last4: string): string {
  return `xxxx xxxx xxxx ${last4}`;
}

/** The customer's live (not deleted) profiles at the vendor: the start of every profile query. */
export function liveBillingProfiles(db: Kysely<DB>, owner: ProfileOwner) {
  return db.selectFrom('billing_profiles').where('user_id', '=', owner.userId).where('vendor_id', '=', owner.vendorId).where('deleted_at', 'is', null);
}

/** The id of the customer's default live profile at the vendor, if any. */
export async function defaultBillingProfileId(db: Kysely<DB>, owner: ProfileOwner): Promise<number | null> {
  const row = await liveBillingProfiles(db, owner).select('id').where('is_default', '=', 1).executeTakeFirst();
  return row?.id ?? null;
}

/**
 * The customer's live (not deleted) billing profile with this number at this vendor. Another
 * customer's profile, another vendor's, a deleted one and an unknown number all answer the same
 * 404 billing_profile_not_found, so ids cannot be probed.
 */
export async function findBillingProfile(db: Kysely<DB>, owner: ProfileOwner, profileId: number): Promise<BillingProfileRow> {
  const row = Number.isSafeInteger(profileId)
    ? await liveBillingProfiles(db, owner).selectAll().where('id', '=', profileId).executeTakeFirst()
    : undefined;
  if (!row) throw new ServiceError('billing_profile_not_found', undefined, 'user_billingProfile_id');
  return row;
}

/** The customer's live profiles at the vendor, newest first. */
export function listBillingProfileRows(db: Kysely<DB>, owner: ProfileOwner): Promise<BillingProfileRow[]> {
  return liveBillingProfiles(db, owner)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The profile auto reload charges, when the customer's settings name a live one. */
export async function autoReloadProfile(db: Kysely<DB>, owner: ProfileOwner, profileId: number | null): Promise<BillingProfileRecord | null> {
  if (profileId === null) return null;
  const row = await liveBillingProfiles(db, owner).selectAll().where('id', '=', profileId).executeTakeFirst();
  return row ? toBillingProfileRecord(row) : null;
}

/**
 * The profile the profile, login and onscreen replies show as `billing_profile`: the one selected
 * for auto reload, only while auto reload is enabled (amount, threshold and a live profile); else null.
 */
export async function autoReloadBillingProfile(
  db: Kysely<DB>,
  link: { user_id: number; vendor_id: number; reload_amount: number; reload_threshold: number; billing_profile_id: number | null },
): Promise<BillingProfileRecord | null> {
  if (!(Number(link.reload_amount) > 0 && Number(link.reload_threshold) > 0)) return null;
  return autoReloadProfile(db, { vendorId: link.vendor_id, userId: link.user_id }, link.billing_profile_id);
}
