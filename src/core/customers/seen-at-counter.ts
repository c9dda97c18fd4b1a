import type { UserRow, UserVendorRow } from './customer-store';

type Shown = Pick<UserRow, 'first_name' | 'last_name' | 'email' | 'phone' | 'birthdate'>;

/**
 * What a store sees of a customer. A customer of another program whom a cashier enrolled by
 * typing their email or phone has not yet chosen this program: until they confirm (log in or sign
 * up here, or show this program's app barcode) the counter sees their first name and the initial
 * of their last name, never their email, phone or birthdate.
 */
export function seenAtCounter<T extends Shown>(user: T, link: Pick<UserVendorRow, 'counter_enrolled'> | null | undefined): T {
  if (!link || link.counter_enrolled === 0) return user;
  return nameOnly(user);
}

/** The person by name only: first name and the initial of the last name; no email, phone or birthdate. */
export function nameOnly<T extends Shown>(user: T): T {
  return { ...user, last_name: initialOf(user.last_name), email: null, phone: null, birthdate: null };
}

function initialOf(name: string): string {
  const first = [...name.trim()][0];
  return first ? `${first.toUpperCase()}.` : '';
}
