import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { ServiceError } from '../../shared/errors';

// No dot at either end of the local part, none doubled, and a domain of non-empty labels: a trailing
// dot (`ana@example.com.`, the same mailbox) would have made a second account beside the first.
const EMAIL = /^(?!\.)(?!.*\.\.)[^\s@"<>()[\]\\,;:]+(?<!\.)@(?:[^\s@"<>()[\]\\,;:.]+\.)+[^\s@"<>()[\]\\,;:.]{2,}$/;

/**
 * A deliverable-looking address, trimmed and composed (NFC); uniqueness and lookups ignore letter
 * case. Composed because one address reaches us in two forms: `é` typed is U+00E9, pasted from a
 * Mac file name it is `e` + U+0301. Kept as sent, each made an account of its own and neither
 * logged in with the other.
 */
export function cleanEmail(email: string, field = 'email_address'): string {
  const clean = email.trim().normalize('NFC');
  if (!isEmail(clean)) throw new ServiceError('invalid_email', undefined, field);
  return clean;
}

/** Whether `email` is an address as cleanEmail stores it (trimmed, deliverable-looking). */
export function isEmail(email: string): boolean {
  return email.length <= 254 && email === email.trim() && EMAIL.test(email);
}

export function emailKey(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

export function looksLikeEmail(value: string): boolean {
  return EMAIL.test(value.trim());
}

/**
 * A phone number in E.164. `code` is a calling code ("593", "+593") as the interface sends it in
 * `phone_number {number, code}`; without one, the number may carry its own +code, else the
 * country (ISO 3166-1 alpha-2) decides how a national number reads.
 */
export function toE164(number: string, options: { callingCode?: string | null; country?: string | null }): string | null {
  const digits = number.trim();
  if (digits === '') return null;
  const code = options.callingCode?.replace(/[^\d]/g, '');
  const candidate = code && !digits.startsWith('+') ? `+${code}${digits.replace(/^0+/, '')}` : digits;
  const parsed = parsePhoneNumberFromString(candidate, (options.country ?? undefined) as never);
  if (parsed?.isValid()) return parsed.number;
  // Dropping the leading 0 is the trunk prefix almost everywhere, but not in Italy (a Rome landline
  // is +39 06…): read as a national number of the calling code's country when that fails.
  if (!code || digits.startsWith('+')) return null;
  const national = parsePhoneNumberFromString(digits, { defaultCallingCode: code });
  if (national?.isValid()) return national.number;
  return withInternationalPrefix(digits, code);
}

/**
 * A number typed as most of the world dials abroad, the prefix 00 before the calling code it also
 * names ("0033 6 12 34 56 78" beside code 33): the same number as "+33 6 12 34 56 78". Tried last,
 * so a number that read before reads the same.
 */
function withInternationalPrefix(typed: string, code: string): string | null {
  const digits = typed.replace(/[^\d]/g, '');
  if (!digits.startsWith(`00${code}`)) return null;
  const parsed = parsePhoneNumberFromString(`+${digits.slice(2)}`);
  return parsed?.isValid() && parsed.countryCallingCode === code ? parsed.number : null;
}

/** Whether `phone` is a number as cleanPhone stores it (E.164 that reads back as itself). */
export function isPhone(phone: string): boolean {
  return toE164(phone, {}) === phone;
}

export function cleanPhone(number: string, options: { callingCode?: string | null; country?: string | null }, field = 'phone_number'): string {
  const e164 = toE164(number, options);
  if (!e164) throw new ServiceError('invalid_phone', undefined, field);
  return e164;
}

/** A phone as clients send it: the contract's `{number, code}`, or one E.164 string ("+593991234567"). */
export type PhoneInput = { number?: string | undefined; code?: string | undefined } | string;

/** The phone of `input` in E.164, or null when it is empty (read in `country` when it has no +code). */
export function phoneFromInput(input: PhoneInput | null, country: string | null, field = 'phone_number'): string | null {
  const parts = typeof input === 'string' ? { number: input } : (input ?? {});
  const number = parts.number?.trim() ?? '';
  return number === '' ? null : cleanPhone(number, { callingCode: parts.code ?? null, country }, field);
}

export function cleanName(value: string, field: string, options: { allowEmpty?: boolean } = {}): string {
  // Composed (NFC), as the name search folds what is typed: "Nu\u0301n\u0303ez" is stored "Núñez".
  const clean = value.normalize('NFC').trim().replace(/\s+/g, ' ');
  // In the words of the request schemas' own limits (server/errors/validation-message.ts).
  if (!options.allowEmpty && clean.length === 0) throw new ServiceError('validation_failed', `${field} must not be empty.`, field);
  if (clean.length > 100) throw new ServiceError('validation_failed', `${field} must be at most 100 characters.`, field);
  return clean;
}
