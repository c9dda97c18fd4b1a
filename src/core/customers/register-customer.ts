import { ServiceError } from '../../shared/errors';
import { languageById } from '../../shared/languages';
import { type Engine, transact } from '../engine';
import { cleanEmail, cleanName, emailKey, type PhoneInput, phoneFromInput } from './contact';
import { assertCedulaFree, assertPhoneFree, confirmMembership, findUserByEmail, insertUser, linkUserToVendor, loadVendor, type UserRow, type UserVendorRow } from './customer-store';
import { isValidNationalId, normaliseNationalId } from './national-id';
import { lockIdentifiers } from '../storage/identifier-locks';
import { onceMoreOnClash } from '../storage/once-more-on-clash';
import { hashPassword } from './passwords';

export interface Registration {
  vendorId: number;
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  terms: boolean;
  anonymous?: boolean | undefined;
  /** Unix seconds. */
  birthdate?: number | undefined;
  /** Language id (1 English, 2 Spanish). */
  language?: number | undefined;
  cedula?: string | undefined;
  contactConsent?: number | undefined;
  /** Optional; a phone another account uses is a 409, an invalid one a 400 (never dropped). */
  phone?: PhoneInput | null | undefined;
}

/**
 * The 409 of a sign-up with an email that has an account. One text for every account, so it tells
 * nobody whether the account is a counter guest: a guest (no password yet) is claimed with a
 * password reset, which proves the mailbox.
 */
const EMAIL_TAKEN_AT_SIGN_UP = 'An account with that email address already exists. Please log in, or reset your password if you have not set one yet (an account opened at a store has none).';

/**
 * Creates an account and links it to the vendor. An email that already has an account is a 409,
 * whichever vendor it registered with (log in instead: the first login with another vendor links
 * the account there). That includes a guest opened at a counter with no password yet: knowing its
 * email is not owning it, and it may hold points and quick pay, so a sign-up never sets its
 * password. Its owner claims it with a password reset, whose token goes to the guest's email.
 */
export async function registerCustomer(engine: Engine, input: Registration): Promise<{ user: UserRow; link: UserVendorRow }> {
  if (input.terms !== true) throw new ServiceError('validation_failed', 'The terms must be accepted (terms=true).', 'terms');
  if (input.anonymous === true) throw new ServiceError('validation_failed', 'Anonymous accounts are not supported (anonymous=false).', 'anonymous');
  const email = cleanEmail(input.email);
  const firstName = cleanName(input.firstName, 'first_name');
  const lastName = cleanName(input.lastName, 'last_name', { allowEmpty: true });
  const language = input.language === undefined ? null : languageById(input.language)?.code;
  if (language === undefined) throw new ServiceError('validation_failed', 'language must be 1 (English) or 2 (Spanish).', 'language');
  refuseBirthdateAhead(input.birthdate, engine.clock.now());
  const passwordHash = await hashPassword(input.password);
  return onceMoreOnClash(engine.dialect, () => writeRegistration(engine, input, { email, firstName, lastName, language, passwordHash }));
}

/**
 * A birthdate after today is a mistake (2090 typed for 1990; the schema stops at 2100): refused. A
 * day of slack: a client may send the birthday's local midnight, up to 14 hours ahead of UTC.
 */
function refuseBirthdateAhead(birthdate: number | undefined, now: number): void {
  if (birthdate !== undefined && birthdate * 1000 > now + 24 * 3600_000) {
    throw new ServiceError('validation_failed', 'birthdate is in the future: send the date of birth as Unix seconds.', 'birthdate');
  }
}

/** The registration's one transaction, on values already checked (the password already hashed). */
function writeRegistration(
  engine: Engine,
  input: Registration,
  clean: { email: string; firstName: string; lastName: string; language: string | null; passwordHash: string },
): Promise<{ user: UserRow; link: UserVendorRow }> {
  const { email, firstName, lastName, language, passwordHash } = clean;
  return transact(engine, async (trx) => {
    const vendor = await loadVendor(trx, input.vendorId);
    let cedula: string | null = null;
    if (input.cedula !== undefined && input.cedula.trim() !== '') {
      if (!isValidNationalId(vendor.country, input.cedula)) throw new ServiceError('invalid_national_id', undefined, 'cedula');
      cedula = normaliseNationalId(input.cedula);
    }

    const phone = phoneFromInput(input.phone ?? null, vendor.country);
    // Before the checks: a registration with the same phone or cédula waits, then finds this one.
    await lockIdentifiers(trx, engine.dialect, { phone, cedula });
    // Any account: a counter guest too (no password yet), whose owner claims it by a password reset.
    if (await findUserByEmail(trx, emailKey(email))) throw new ServiceError('email_taken', EMAIL_TAKEN_AT_SIGN_UP, 'email_address');
    if (phone) await assertPhoneFree(trx, phone, null);
    if (cedula) await assertCedulaFree(trx, cedula, null);

    const user = await insertUser(trx, engine, {
      email,
      email_key: emailKey(email),
      password_hash: passwordHash,
      first_name: firstName,
      last_name: lastName,
      birthdate: input.birthdate === undefined ? null : input.birthdate * 1000,
      cedula,
      phone,
      first_vendor_id: vendor.id,
    });
    const link = await confirmMembership(trx, await linkUserToVendor(trx, engine, { userId: user.id, vendorId: vendor.id, contactConsent: input.contactConsent ?? 0, language, via: 'app' }));
    return { user, link };
  });
}
