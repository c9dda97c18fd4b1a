import { createRequire } from 'node:module';
import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { DB } from '../storage/schema';

// Cédulas and other national ids, checked with stdnum (a port of python-stdnum) for the vendor's
// country. Where stdnum has no validator for a country, any 4-20 letters and digits pass: we cannot
// tell, and refusing real customers is worse than storing an unchecked number.

type Stdnum = typeof import('stdnum');
let loaded: Stdnum | undefined;
/** stdnum builds every country's rules when loaded (~0.1 s): done at the first check, not at every start. */
const stdnum = (): Stdnum => (loaded ??= createRequire(import.meta.url)('stdnum') as Stdnum);

export function normaliseNationalId(value: string): string {
  return value.replace(/[\s.\-/]/g, '').toUpperCase();
}

export function isValidNationalId(country: string, value: string): boolean {
  const clean = normaliseNationalId(value);
  if (!/^[0-9A-Z]{4,20}$/.test(clean)) return false;
  if (!(country in stdnum().personValidators)) return true;
  // Uruguay's validator wants 8 digits; older cedulas have 7.
  const candidate = country === 'UY' && /^\d{7}$/.test(clean) ? `0${clean}` : clean;
  return stdnum().validatePerson(country, candidate).isValid === true;
}

/**
 * A passport number as stored and looked up: letters and digits only (spaces, dots and dashes
 * dropped), upper case, 5 to 20 characters; '' or null clears it. Not checked against a country:
 * passports are issued by many, in formats no library covers.
 */
export function cleanPassportNumber(value: string | null): string | null {
  if (value === null) return null;
  const clean = normaliseNationalId(value);
  if (clean === '') return null;
  if (!/^[0-9A-Z]{5,20}$/.test(clean)) throw new ServiceError('validation_failed', 'passport_number must be 5 to 20 letters and digits.', 'passport_number');
  return clean;
}

/** 409 passport_taken when another account (not deleted) holds the passport number. */
export async function assertPassportFree(db: Kysely<DB>, passport: string | null, userId: number | null): Promise<void> {
  if (passport === null) return;
  const holder = await db.selectFrom('users').select('id').where('passport_number', '=', passport).where('status', '!=', 'deleted').executeTakeFirst();
  if (holder && holder.id !== userId) throw new ServiceError('passport_taken', undefined, 'passport_number');
}
