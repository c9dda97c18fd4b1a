import type { UserRow, UserVendorRow } from '../customers/customer-store';
import { nameOnly, seenAtCounter } from '../customers/seen-at-counter';
import type { ApiKeyRole } from '../../shared/roles';
import type { ScannerStation } from '../../shared/schemas/scanners';
import type { CustomerAtCounter } from './retrieve-customer';

// What a kiosk key reads of a customer. A kiosk faces the public and its key sits in that device:
// whoever types another person's phone there, or lifts the key, must learn no more than the kiosk
// screen shows — the first name (the last name's initial only tells a guest, whose is empty), the
// tier, the balances and the program's rules. Replies keep their shape: what is left out becomes
// null where the interface allows it, else the value that means "none" ('' contact, [] favourites,
// 0 auto reload, which the interface reads as disabled; false flag). Cashier and integration keys
// run the counter and read everything.
// And only whom a kiosk greets: a kiosk key reads a session (in the queue, by its hash) while a
// kiosk's identification of it is recent — its own check-in or register, or a scan of a scanner
// whose scans kiosks greet. Everyone else waiting is the counter's business.

/**
 * How long after a kiosk identified a customer a kiosk key may read their session. The welcome
 * lasts seconds (the screen reads the session at once); the margin is for a slow screen.
 */
export const KIOSK_READ_WINDOW_MS = 120_000;

/**
 * Whether an identification is a kiosk's: made with a kiosk key, or read by a node's scanner at the
 * kiosk station or at none (an unassigned scanner serves every screen: kiosk-events.ts greets it).
 */
export function identifiedAtKiosk(role: ApiKeyRole, device: { via?: 'scanner'; station?: ScannerStation }): boolean {
  return role === 'kiosk' || (device.via === 'scanner' && device.station !== 'counter');
}

/** Whether a key of this role may read a session a kiosk last identified at `kioskIdentifiedAt` (null: not a kiosk). */
export function mayReadSession(role: ApiKeyRole, kioskIdentifiedAt: number | null, now: number): boolean {
  return role !== 'kiosk' || (kioskIdentifiedAt !== null && now - kioskIdentifiedAt <= KIOSK_READ_WINDOW_MS);
}

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
