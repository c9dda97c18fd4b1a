import { ServiceError } from '../../shared/errors';
import { type Engine, transact } from '../engine';
import { queueMessage } from '../messaging/queue-message';
import { cleanPhone } from './contact';
import { assertPhoneFree, loadUser, loadVendor, messageLocale, verificationMethodsOf } from './customer-store';
import { lockIdentifiers } from '../storage/identifier-locks';
import { consumeAccountCode, issueCode } from './one-time-codes';
import type { CustomerSession } from './sessions';

export interface VerificationStatus {
  isValidated: boolean;
  phone: string | null;
  methods: Array<'Email' | 'Sms'>;
  status: { 'No Verification': boolean; Email: boolean; Sms: boolean };
}

/** Verified when at least one method the vendor enables is verified; a vendor with none needs nothing. */
export async function verificationStatus(engine: Engine, session: CustomerSession): Promise<VerificationStatus> {
  const [user, vendor] = await Promise.all([loadUser(engine.db, session.userId), loadVendor(engine.db, session.vendorId)]);
  const methods = verificationMethodsOf(vendor);
  const status = { 'No Verification': methods.length === 0, Email: user.email_verified_at !== null, Sms: user.phone_verified_at !== null };
  return { isValidated: status['No Verification'] || methods.some((m) => status[m]), phone: user.phone, methods, status };
}

function requireMethod(methods: Array<'Email' | 'Sms'>, method: 'Email' | 'Sms'): void {
  if (!methods.includes(method)) throw new ServiceError('verification_method_disabled');
}

/** GET /user/activate/email: emails a 6-digit activation code (valid 24 h). */
export function sendEmailVerification(engine: Engine, session: CustomerSession): Promise<void> {
  return transact(engine, async (trx) => {
    const [user, vendor] = await Promise.all([loadUser(trx, session.userId), loadVendor(trx, session.vendorId)]);
    requireMethod(verificationMethodsOf(vendor), 'Email');
    if (!user.email) throw new ServiceError('validation_failed', 'The account has no email address.', 'email_address');
    const token = await issueCode(trx, engine, { userId: user.id, vendorId: vendor.id, purpose: 'email_verification', target: user.email });
    await queueMessage(trx, engine, {
      vendorId: vendor.id,
      channel: 'email',
      to: user.email,
      userId: user.id,
      template: 'email_verification',
      locale: await messageLocale(trx, user.id, vendor),
      params: { first_name: user.first_name, token, vendor_name: vendor.name },
    });
  });
}

/**
 * GET /user/activate/sms: texts a 6-digit code (valid 10 min). With `phone` (and its `country`,
 * ISO 3166-1 alpha-2) the account's number changes first and must then be verified again.
 */
export function sendSmsVerification(engine: Engine, session: CustomerSession, input: { phone?: string | undefined; country?: string | undefined }): Promise<void> {
  return transact(engine, async (trx) => {
    const [user, vendor] = await Promise.all([loadUser(trx, session.userId), loadVendor(trx, session.vendorId)]);
    requireMethod(verificationMethodsOf(vendor), 'Sms');
    let phone = user.phone;
    if (input.phone !== undefined && input.phone.trim() !== '') {
      if (!input.country) throw new ServiceError('validation_failed', 'country is required with phone (two-letter ISO 3166-1 code).', 'country');
      if (!/^[A-Za-z]{2}$/.test(input.country)) throw new ServiceError('validation_failed', 'country must be a two-letter ISO 3166-1 code.', 'country');
      phone = cleanPhone(input.phone, { country: input.country.toUpperCase() }, 'phone');
      // Before the check: another account setting the same number at once waits, then finds this one.
      await lockIdentifiers(trx, engine.dialect, { phone });
      await assertPhoneFree(trx, phone, user.id, 'phone');
      if (phone !== user.phone) {
        await trx.updateTable('users').set({ phone, phone_verified_at: null, updated_at: engine.clock.now() }).where('id', '=', user.id).execute();
      }
    }
    if (!phone) throw new ServiceError('no_phone_number');
    const token = await issueCode(trx, engine, { userId: user.id, vendorId: vendor.id, purpose: 'sms_verification', target: phone });
    await queueMessage(trx, engine, {
      vendorId: vendor.id,
      channel: 'sms',
      to: phone,
      userId: user.id,
      template: 'sms_verification',
      locale: await messageLocale(trx, user.id, vendor),
      params: { token, vendor_name: vendor.name },
    });
  });
}

/** GET /user/activate: the code from the email or the SMS verifies that address or number. */
export async function activateAccount(engine: Engine, session: CustomerSession, token: string): Promise<void> {
  // A wrong code is counted and committed first, then reported.
  const failure = await transact(engine, async (trx) => {
    const user = await loadUser(trx, session.userId);
    const used = await consumeAccountCode(trx, engine, { userId: user.id, purposes: ['email_verification', 'sms_verification'], code: token });
    if (used instanceof ServiceError) return used;
    const now = engine.clock.now();
    // A code proves the address or number it was sent to; if that changed since, it proves nothing.
    if (used.purpose === 'email_verification' && used.target === user.email) {
      await trx.updateTable('users').set({ email_verified_at: now, updated_at: now }).where('id', '=', user.id).execute();
    } else if (used.purpose === 'sms_verification' && used.target === user.phone) {
      await trx.updateTable('users').set({ phone_verified_at: now, updated_at: now }).where('id', '=', user.id).execute();
    } else {
      throw new ServiceError('invalid_code', 'The code was sent to an address or number the account no longer uses.', 'token');
    }
    return null;
  });
  if (failure) throw failure;
}
