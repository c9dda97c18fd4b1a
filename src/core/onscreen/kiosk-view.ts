import type { UserRow, UserVendorRow } from '../customers/customer-store';
import { nameOnly, seenAtCounter } from '../customers/seen-at-counter';
import type { ApiKeyRole } from '../../shared/roles';
import type { CustomerAtCounter } from './retrieve-customer';

// What a kiosk key reads of a customer. A kiosk faces the public and its key sits in that device:
// whoever types another person's phone there, or lifts the key, must learn no more than the kiosk
// screen shows — the first name (the last name's initial only tells a guest, whose is empty), the
// tier, the balances and the program's rules. Replies keep their shape: what is left out becomes
// null where the interface allows it, else the value that means "none" ('' contact, [] favourites,
// 0 auto reload, which the interface reads as disabled; false flag). Cashier and integration keys
// run the counter and read everything.

type Shown = Pick<UserRow, 'first_name' | 'last_name' | 'email' | 'phone' | 'birthdate'>;

/** The person as a key of this role sees them: a kiosk by name only, the counter as seenAtCounter says. */
export function personSeenBy<T extends Shown>(role: ApiKeyRole, user: T, link: Pick<UserVendorRow, 'counter_enrolled'> | null | undefined): T {
  return role === 'kiosk' ? nameOnly(user) : seenAtCounter(user, link);
}

/** The checked-in customer as a key of this role may read them (GET /onscreen). */
export function customerSeenBy(role: ApiKeyRole, customer: CustomerAtCounter): CustomerAtCounter {
  if (role !== 'kiosk') return customer;
  const { membership, session } = customer;
  return {
    ...customer,
    // the card that identified them lets anyone check in, and spend, as them
    session: { ...session, card_number: null },
    membership: {
      ...membership,
      user: nameOnly(membership.user),
      // no auto reload means no saved card is read or shown
      link: { ...membership.link, flagged: 0, reload_amount: 0, reload_threshold: 0, billing_profile_id: null },
    },
    lastVisit: null,
    favouriteItems: [],
  };
}
