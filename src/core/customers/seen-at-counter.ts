import type { UserRow, UserVendorRow } from './customer-store';

type Shown = Pick<UserRow, 'first_name' | 'last_name' | 'email' | 'phone'> & Partial<Pick<UserRow, 'birthdate' | 'cedula' | 'passport_number'>>;

/** What only the person's own program sees, where a record carries it. */
const HIDDEN = ['email', 'phone', 'birthdate', 'cedula', 'passport_number'] as const;

/**
 * What a program sees of a customer: its counter, and its back office and webhooks alike. A
 * customer of another program whom a cashier (or kiosk) enrolled by typing their email or phone
 * has not yet chosen this program: until they confirm (log in or sign up here, or show this
 * program's app barcode) the program sees their first name and the initial of their last name,
 * never their email, phone, birthdate or id numbers.
 */
export function seenAtCounter<T extends Shown>(user: T, link: Pick<UserVendorRow, 'counter_enrolled'> | null | undefined): T {
  if (!link || link.counter_enrolled === 0) return user;
  return nameOnly(user);
}

/**
 * The person by name only: first name and the initial of the last name; no email, phone,
 * birthdate or id numbers (those of them the record carries become null).
 */
export function nameOnly<T extends Shown>(user: T): T {
  const shown: T = { ...user, last_name: initialOf(user.last_name) };
  for (const key of HIDDEN) if (key in shown) (shown as Record<string, unknown>)[key] = null;
  return shown;
}

function initialOf(name: string): string {
  const first = [...name.trim()][0];
  return first ? `${first.toUpperCase()}.` : '';
}
