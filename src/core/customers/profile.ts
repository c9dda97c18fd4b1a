import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { languageById } from '../../shared/languages';
import { type Engine, transact } from '../engine';
import { findCountryById, findRegion, isValidPostalCode, vendorServesCountry } from '../geo';
import { lockIdentifiers } from '../storage/identifier-locks';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { recordCustomerEvent } from '../webhooks/events';
import { cleanEmail, cleanName, emailKey, type PhoneInput, phoneFromInput } from './contact';
import { assertPhoneFree, findUserByEmail } from './customer-store';
import { assertPassportFree, cleanPassportNumber } from './national-id';
import { loadMembership, type Membership } from './membership';
import { onceMoreOnClash } from '../storage/once-more-on-clash';
import { programsOfPerson } from './programs-of-person';
import { hashPassword, passwordMatches } from './passwords';
import type { CustomerSession } from './sessions';
import { endAllSessions } from './sessions';
import { type VerificationStatus, verificationStatus } from './verification';
import { withdrawEmailedCodes, withdrawPasswordResets } from './one-time-codes';

export interface MetadataValue {
  id: number;
  fieldId: number;
  field: string;
  value: string;
  validation: string | null;
  inputType: string | null;
}

export interface CustomerProfile extends Membership {
  metadata: MetadataValue[];
  verification: VerificationStatus;
}

export async function getProfile(engine: Engine, session: CustomerSession): Promise<CustomerProfile> {
  const membership = await loadMembership(engine.db, session.userId, session.vendorId);
  const metadata = await engine.db
    .selectFrom('user_metadata as m')
    .innerJoin('metadata_fields as f', 'f.id', 'm.field_id')
    .select(['m.id', 'm.field_id', 'f.name', 'm.value', 'f.validation', 'f.input_type'])
    .where('m.user_vendor_id', '=', membership.link.id)
    .orderBy('f.name')
    .execute();
  return {
    ...membership,
    metadata: metadata.map((m) => ({ id: m.id, fieldId: m.field_id, field: m.name, value: m.value, validation: m.validation, inputType: m.input_type })),
    verification: await verificationStatus(engine, session),
  };
}

export interface ProfileChanges {
  address1?: string | undefined;
  city?: string | undefined;
  region?: number | null | undefined;
  country?: number | null | undefined;
  postal_code?: string | undefined;
  phone_number?: PhoneInput | null | undefined;
  password?: string | undefined;
  email_address?: string | undefined;
  current_password?: string | undefined;
  language?: unknown;
  contact_consent?: number | undefined;
  first_name?: string | undefined;
  /** Set or change ('' or null clears it). */
  passport_number?: string | null | undefined;
  last_name?: string | undefined;
  status?: unknown;
  metadata?: Record<string, unknown> | null | undefined;
}

const MAX_METADATA_FIELDS = 50;

/**
 * PUT /user/profile: only what is sent changes; everything is checked before anything is written.
 * A new password or email needs current_password; a new password ends the customer's other
 * sessions; a new email or phone must be verified again.
 */
export function updateProfile(engine: Engine, session: CustomerSession, changes: ProfileChanges): Promise<void> {
  // Checked again from the start after a lost race (an email or a new metadata field taken at once).
  return onceMoreOnClash(engine.dialect, () => applyProfileChanges(engine, session, changes));
}

async function applyProfileChanges(engine: Engine, session: CustomerSession, changes: ProfileChanges): Promise<void> {
  const { user, link, vendor } = await loadMembership(engine.db, session.userId, session.vendorId);
  const userSet: Record<string, unknown> = {};
  const linkSet: Record<string, unknown> = {};

  if (changes.password !== undefined || changes.email_address !== undefined) {
    if (!changes.current_password) throw new ServiceError('validation_failed', 'current_password is required to change the password or email.', 'current_password');
    if (!(await passwordMatches(user.password_hash, changes.current_password))) throw new ServiceError('wrong_current_password', undefined, 'current_password');
  }
  if (changes.password !== undefined) userSet.password_hash = await hashPassword(changes.password);
  if (changes.email_address !== undefined) {
    const email = cleanEmail(changes.email_address);
    if (emailKey(email) !== user.email_key) {
      const holder = await findUserByEmail(engine.db, emailKey(email));
      if (holder && holder.id !== user.id) throw new ServiceError('email_taken', undefined, 'email_address');
      Object.assign(userSet, { email, email_key: emailKey(email), email_verified_at: null });
    }
  }
  if (changes.first_name !== undefined) userSet.first_name = cleanName(changes.first_name, 'first_name');
  if (changes.last_name !== undefined) userSet.last_name = cleanName(changes.last_name, 'last_name', { allowEmpty: true });
  if (changes.address1 !== undefined) userSet.address1 = limited(changes.address1, 'address1', 200);
  if (changes.city !== undefined) userSet.city = limited(changes.city, 'city', 100);

  // Country, region and postal code are checked together against the country data.
  const countryId = changes.country !== undefined ? changes.country : user.country_id;
  const country = countryId === null ? undefined : findCountryById(countryId);
  if (changes.country !== undefined && changes.country !== null) {
    if (!country) throw new ServiceError('validation_failed', `No country has id ${changes.country}.`, 'country');
    if (!(await vendorServesCountry(engine, vendor.id, country.code))) throw new ServiceError('validation_failed', `${country.name} is not served by this program.`, 'country');
    userSet.country_id = country.id;
  } else if (changes.country === null) userSet.country_id = null;
  const regionId = changes.region !== undefined ? changes.region : changes.country !== undefined ? null : user.region_id;
  if (regionId !== null) {
    const region = findRegion(regionId);
    if (!region) throw new ServiceError('validation_failed', `No region has id ${regionId}.`, 'region');
    if (region.countryCode !== country?.code) throw new ServiceError('validation_failed', 'The region is not in the account\'s country.', 'region');
  }
  if (changes.region !== undefined || changes.country !== undefined) userSet.region_id = regionId;
  const postalCode = changes.postal_code !== undefined ? changes.postal_code.trim() : user.postal_code;
  if ((changes.postal_code !== undefined || changes.country !== undefined) && postalCode && country && !isValidPostalCode(country.code, postalCode)) {
    throw new ServiceError('invalid_postal_code', `"${postalCode}" is not a postal code of ${country.name}.`, 'postal_code');
  }
  if (changes.postal_code !== undefined) userSet.postal_code = postalCode === '' ? null : postalCode;

  // Whether nobody else holds a new phone or passport number is checked in the transaction (assertIdentifiersFree).
  if (changes.phone_number !== undefined) {
    const phone = phoneFromInput(changes.phone_number, country?.code ?? vendor.country);
    if (phone !== user.phone) Object.assign(userSet, { phone, phone_verified_at: null });
  }
  if (changes.passport_number !== undefined) userSet.passport_number = cleanPassportNumber(changes.passport_number);
  if (changes.language !== undefined) linkSet.language = parseLanguage(changes.language);
  if (changes.contact_consent !== undefined) {
    if (![0, 1, 2, 3].includes(changes.contact_consent)) throw new ServiceError('validation_failed', 'contact_consent must be 0, 1, 2 or 3.', 'contact_consent');
    linkSet.contact_consent = changes.contact_consent;
  }
  if (changes.status !== undefined && statusId(changes.status) !== 1) {
    throw new ServiceError('validation_failed', 'Only the Active status (1) can be set here; use /user/account/deactivate to deactivate.', 'status');
  }
  const metadata = changes.metadata === undefined || changes.metadata === null ? [] : parseMetadata(changes.metadata);

  await transact(engine, async (trx) => {
    await assertIdentifiersFree(trx, engine, user.id, userSet);
    const now = engine.clock.now();
    if (Object.keys(userSet).length > 0) await trx.updateTable('users').set({ ...userSet, updated_at: now }).where('id', '=', user.id).execute();
    if (Object.keys(linkSet).length > 0) await trx.updateTable('user_vendors').set({ ...linkSet, updated_at: now }).where('id', '=', link.id).execute();
    for (const [field, value] of metadata) await writeMetadata(trx, engine, { vendorId: vendor.id, userVendorId: link.id, field, value });
    if (userSet.password_hash !== undefined) {
      await endAllSessions(trx, engine, user.id, session.sessionId);
      await withdrawPasswordResets(trx, engine, user.id);
    }
    if (userSet.email_key !== undefined) await withdrawEmailedCodes(trx, engine, user.id);
    // The person's own fields (name, email, phone…) are every program's copy: each hears of them;
    // the membership's (consent, language, metadata) and a new password only this one.
    const shared = Object.keys(userSet).some((column) => column !== 'password_hash');
    for (const vendorId of shared ? await programsOfPerson(trx, user.id, vendor.id) : [vendor.id]) {
      await recordCustomerEvent(trx, engine, 'customer.updated', { vendorId, userId: user.id });
    }
  });
}

/**
 * 409 phone_taken / passport_taken when another account holds the new phone or passport number,
 * read under their locks (taken first in the transaction): no unique index stops two accounts
 * setting one number at once, so the second waits for the first and then finds it.
 */
async function assertIdentifiersFree(trx: Kysely<DB>, engine: Engine, userId: number, userSet: Record<string, unknown>): Promise<void> {
  const phone = typeof userSet.phone === 'string' ? userSet.phone : null;
  const passport = typeof userSet.passport_number === 'string' ? userSet.passport_number : null;
  await lockIdentifiers(trx, engine.dialect, { phone, passport });
  if (phone) await assertPhoneFree(trx, phone, userId);
  await assertPassportFree(trx, passport, userId);
}

function limited(value: string, field: string, max: number): string | null {
  const clean = value.trim();
  if (clean.length > max) throw new ServiceError('validation_failed', `${field} must be at most ${max} characters.`, field);
  return clean === '' ? null : clean;
}

/** `language` arrives as a language id, a numeric string, an object with an id, or null. */
function parseLanguage(value: unknown): string | null {
  if (value === null || value === '') return null;
  const id = wholeNumber(typeof value === 'object' ? (value as { id?: unknown }).id : value);
  const language = languageById(id);
  if (!language) throw new ServiceError('validation_failed', 'language must be 1 (English) or 2 (Spanish).', 'language');
  return language.code;
}

function statusId(value: unknown): number {
  if (typeof value === 'object' && value !== null) {
    const v = value as { id?: unknown; status_id?: unknown };
    return wholeNumber(v.id ?? v.status_id);
  }
  return wholeNumber(value);
}

/** An id sent as a number or a string of digits; anything else (true, "0x1", " 1 ") is NaN, so refused. */
function wholeNumber(value: unknown): number {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : Number.NaN;
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
}

function parseMetadata(value: Record<string, unknown>): Array<[string, string | null]> {
  if (typeof value !== 'object' || Array.isArray(value)) throw new ServiceError('validation_failed', 'metadata must be an object of field: value.', 'metadata');
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_FIELDS) throw new ServiceError('validation_failed', `metadata can hold at most ${MAX_METADATA_FIELDS} fields.`, 'metadata');
  return entries.map(([field, raw]) => {
    if (!/^[\w .-]{1,64}$/.test(field)) throw new ServiceError('validation_failed', `"${field}" is not a valid metadata field name.`, 'metadata');
    if (raw === null) return [field, null];
    if (typeof raw === 'object') throw new ServiceError('validation_failed', `metadata.${field} must be text, a number or a boolean.`, 'metadata');
    const text = String(raw);
    if (text.length > 1000) throw new ServiceError('validation_failed', `metadata.${field} must be at most 1000 characters.`, 'metadata');
    return [field, text];
  });
}

/** Fields are the vendor's (created on first use); a null value removes the customer's entry. */
async function writeMetadata(db: Kysely<DB>, engine: Engine, input: { vendorId: number; userVendorId: number; field: string; value: string | null }): Promise<void> {
  const now = engine.clock.now();
  let field = await db.selectFrom('metadata_fields').select('id').where('vendor_id', '=', input.vendorId).where('name', '=', input.field).executeTakeFirst();
  if (!field) {
    if (input.value === null) return;
    field = { id: await nextObjectId(db, engine.nodeId) };
    await db.insertInto('metadata_fields').values({ id: field.id, vendor_id: input.vendorId, name: input.field, validation: null, input_type: null, created_at: now }).execute();
  }
  const existing = await db.selectFrom('user_metadata').select('id').where('user_vendor_id', '=', input.userVendorId).where('field_id', '=', field.id).executeTakeFirst();
  if (input.value === null) {
    if (existing) await db.deleteFrom('user_metadata').where('id', '=', existing.id).execute();
  } else if (existing) {
    await db.updateTable('user_metadata').set({ value: input.value, updated_at: now }).where('id', '=', existing.id).execute();
  } else {
    await db.insertInto('user_metadata').values({ id: await nextObjectId(db, engine.nodeId), user_vendor_id: input.userVendorId, field_id: field.id, value: input.value, updated_at: now }).execute();
  }
}
