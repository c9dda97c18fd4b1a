import { ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { cleanEmail, emailKey, toE164 } from './contact';
import { findUserByCedula, findUserByEmail, findUserByPhone, loadVendor } from './customer-store';
import { isValidNationalId, normaliseNationalId } from './national-id';

export interface VendorRef {
  id: number;
  name: string;
}

async function vendorRef(engine: Engine, vendorId: number): Promise<VendorRef> {
  const vendor = await loadVendor(engine.db, vendorId);
  return { id: vendor.id, name: vendor.name };
}

/** `vendor` is where the email was first registered; when nobody has it, the vendor asked about. */
export async function emailExists(engine: Engine, input: { email: string; vendorId: number }): Promise<{ exists: boolean; vendor: VendorRef }> {
  const asked = await vendorRef(engine, input.vendorId);
  const user = await findUserByEmail(engine.db, emailKey(cleanEmail(input.email, 'email')));
  // A guest opened at a counter (no password yet) exists too: signing up with its email is a 409, and
  // the app sends its owner to log in, where a password reset (to the guest's email) claims it.
  if (!user || user.status === 'deleted') return { exists: false, vendor: asked };
  return { exists: true, vendor: await vendorRef(engine, user.first_vendor_id) };
}

/** Available: a valid number (read with the vendor's country when it has no +code) that no account uses. */
export async function mobileAvailable(engine: Engine, input: { mobile: string; vendorId: number }): Promise<{ available: boolean }> {
  const vendor = await loadVendor(engine.db, input.vendorId);
  const e164 = toE164(input.mobile, { country: vendor.country });
  if (!e164) return { available: false };
  return { available: (await findUserByPhone(engine.db, e164)) === undefined };
}

/**
 * The number a mobile look-up asks about, as its per-value limit counts it: E.164 when it reads as
 * a number (in the vendor's country without a +code), so "+593 99…" and "099…" are one count; else
 * the text as sent. Never throws: an unknown vendor is the route's own 404.
 */
export async function mobileLookupKey(engine: Engine, input: { mobile: string; vendorId: number }): Promise<string> {
  const vendor = await engine.db.selectFrom('vendors').select('country').where('id', '=', input.vendorId).executeTakeFirst();
  return toE164(input.mobile, { country: vendor?.country ?? null }) ?? input.mobile.trim();
}

/** `valid` checks the number for the vendor's country (stdnum); `vendor` as for emailExists. */
export async function cedulaExists(engine: Engine, input: { cedula: string; vendorId: number }): Promise<{ exists: boolean; valid: boolean; vendor: VendorRef }> {
  const vendor = await loadVendor(engine.db, input.vendorId);
  if (input.cedula.trim() === '') throw new ServiceError('validation_failed', 'cedula is required.', 'cedula');
  const valid = isValidNationalId(vendor.country, input.cedula);
  const user = await findUserByCedula(engine.db, normaliseNationalId(input.cedula));
  if (!user) return { exists: false, valid, vendor: { id: vendor.id, name: vendor.name } };
  return { exists: true, valid, vendor: await vendorRef(engine, user.first_vendor_id) };
}
