import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { refuseBlockedPayer } from '../../customer-care/blocked';
import type { CustomerSession } from '../../customers/sessions';
import { type Engine, transact } from '../../engine';
import { nextObjectId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import { declineError, invalidCardError } from '../gateway/payment-errors';
import type { CardDetails } from '../gateway/payment-gateway';
import { PaymentGatewayError } from '../gateway/payment-gateway';
import { type BillingProfileRecord, type BillingProfileRow, defaultBillingProfileId, findBillingProfile, listBillingProfileRows, type ProfileOwner, toBillingProfileRecord } from './billing-profile';

// Billing profiles: a customer's cards, tokenized through the payment gateway. They are added,
// listed, marked default and deleted; never updated. Only the token and the card's public facts
// (brand, last four digits, expiry, postal code) are stored.

export interface NewBillingProfile {
  number: string;
  expiryMonth: string;
  expiryYear: string;
  cvv: string;
  /** Cardholder name; '' when not given. */
  name?: string | undefined;
  description?: string | undefined;
  zipCode?: string | undefined;
}

const POSTAL_CODE = /^[A-Za-z0-9][A-Za-z0-9 -]{0,15}$/;

const ownerOf = (session: CustomerSession): ProfileOwner => ({ vendorId: session.vendorId, userId: session.userId });

/**
 * POST /user/billing-profile/add: tokenizes the card and stores the profile. An invalid card is a
 * 400 naming the field, a declined one a 422 naming the reason; either way nothing is stored. The
 * customer's first profile becomes the default.
 */
export async function addBillingProfile(engine: Engine, session: CustomerSession, input: NewBillingProfile): Promise<BillingProfileRecord> {
  const owner = ownerOf(session);
  // Attaching a card asks its issuer about it: a blocked customer could test stolen numbers.
  await refuseBlockedPayer(engine.db, owner.vendorId, owner.userId);
  const zip = input.zipCode?.trim() ?? '';
  if (zip !== '' && !POSTAL_CODE.test(zip)) throw new ServiceError('invalid_postal_code', 'The postal code of the card is not valid.', 'zip_code');
  const card: CardDetails = { number: input.number, expiryMonth: input.expiryMonth, expiryYear: input.expiryYear, cvv: input.cvv, name: input.name ?? null, postalCode: zip || null };
  let tokenized;
  try {
    tokenized = await engine.payments.tokenize(card, engine.clock.now());
  } catch (error) {
    if (error instanceof PaymentGatewayError) throw new ServiceError('payment_gateway_unavailable');
    throw error;
  }
  if (tokenized.status === 'invalid') throw invalidCardError(tokenized.reason, tokenized.field);
  if (tokenized.status === 'declined') throw declineError(tokenized.reason, 'number');
  const t = tokenized.card;
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    const hasDefault = (await defaultBillingProfileId(trx, owner)) !== null;
    const row: BillingProfileRow = {
      id: await nextObjectId(trx, engine.nodeId),
      vendor_id: owner.vendorId,
      user_id: owner.userId,
      gateway: engine.payments.name,
      token: t.token,
      brand: t.brand,
      last4: t.last4,
      expiry_month: t.expiryMonth,
      expiry_year: t.expiryYear,
      postal_code: t.postalCode,
      name: input.name?.trim() ?? '',
      description: input.description?.trim() || null,
      is_default: hasDefault ? 0 : 1,
      expiry_reminded_at: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await trx.insertInto('billing_profiles').values(row).execute();
    return toBillingProfileRecord(row);
  });
}

/** GET /user/billing-profile/list: the customer's live profiles at the vendor, newest first. */
export async function listBillingProfiles(engine: Engine, session: CustomerSession): Promise<BillingProfileRecord[]> {
  return (await listBillingProfileRows(engine.db, ownerOf(session))).map(toBillingProfileRecord);
}

/** POST /user/billing-profile/default: this profile becomes the default, no other is. */
export function setDefaultBillingProfile(engine: Engine, session: CustomerSession, profileId: number): Promise<BillingProfileRecord> {
  const owner = ownerOf(session);
  return transact(engine, async (trx) => {
    const profile = await findBillingProfile(trx, owner, profileId);
    await makeDefault(trx, owner, profile.id, engine.clock.now());
    return toBillingProfileRecord((await findBillingProfile(trx, owner, profile.id))!);
  });
}

/**
 * DELETE /user/billing-profile: the profile is removed and can never be charged again. Auto
 * reload settings that name it become disabled, queued auto reloads on it are cancelled, and when
 * it was the default the newest remaining profile becomes the default.
 */
export function deleteBillingProfile(engine: Engine, session: CustomerSession, profileId: number): Promise<void> {
  const owner = ownerOf(session);
  return transact(engine, async (trx) => {
    const profile = await findBillingProfile(trx, owner, profileId);
    const now = engine.clock.now();
    await trx.updateTable('billing_profiles').set({ deleted_at: now, is_default: 0, updated_at: now }).where('id', '=', profile.id).execute();
    await trx
      .updateTable('user_vendors')
      .set({ billing_profile_id: null, updated_at: now })
      .where('billing_profile_id', '=', profile.id)
      .where('user_id', '=', owner.userId)
      .where('vendor_id', '=', owner.vendorId)
      .execute();
    await trx
      .updateTable('auto_reloads')
      .set({ status: 'cancelled', last_error: 'billing profile deleted', finished_at: now, updated_at: now })
      .where('billing_profile_id', '=', profile.id)
      .where('status', '=', 'queued')
      .execute();
    if (profile.is_default === 1) {
      const [newest] = await listBillingProfileRows(trx, owner);
      if (newest) await makeDefault(trx, owner, newest.id, now);
    }
  });
}

async function makeDefault(trx: Kysely<DB>, owner: ProfileOwner, profileId: number, now: number): Promise<void> {
  await trx
    .updateTable('billing_profiles')
    .set({ is_default: 0, updated_at: now })
    .where('user_id', '=', owner.userId)
    .where('vendor_id', '=', owner.vendorId)
    .where('is_default', '=', 1)
    .where('id', '!=', profileId)
    .execute();
  await trx.updateTable('billing_profiles').set({ is_default: 1, updated_at: now }).where('id', '=', profileId).where('is_default', '=', 0).execute();
}
