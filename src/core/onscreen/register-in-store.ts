import { sql } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { refuseBlockedCustomer } from '../customer-care/blocked';
import type { StoreScope } from '../credentials/authenticate';
import { cleanEmail, cleanName, cleanPhone, emailKey } from '../customers/contact';
import { assertPassportFree, cleanPassportNumber } from '../customers/national-id';
import { findUserByEmail, findUserByPhone, insertUser, linkUserToVendor, type UserRow } from '../customers/customer-store';
import { mayVouchForContacts } from '../customers/other-programs';
import { type Engine, transact } from '../engine';
import type { CheckInResult } from './check-in';
import { findVendorCard, unlockCard } from '../user-cards/card-access';
import { linkCard } from '../user-cards/link-card';
import { lockIdentifiers } from '../storage/identifier-locks';
import { onceMoreOnClash } from '../storage/once-more-on-clash';
import { narrowLooseChange } from '../sync/outbox/narrow-loose-change';
import { recordCustomerEvent } from '../webhooks/events';
import { identifiedAtKiosk } from './kiosk-view';
import { counterOf, loadCounterInfo, openSession, publishAll } from './pos-session';

export interface InStoreRegistration {
  phone?: { number: string; code?: string | undefined } | undefined;
  email?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  /** A card of the vendor nobody has linked yet (the one the customer just handed over), linked in the same step. */
  cardNumber?: string | undefined;
  /** The card's pin, when it has one. */
  cardPin?: string | undefined;
  /** Sets (or, for an existing customer at the counter, changes) the customer's passport number. */
  passportNumber?: string | undefined;
  /** The cashier screen that signs the customer up, carried by the session's events. */
  screen?: string | undefined;
}

/**
 * POST /onscreen/register: checks in the customer with that phone or email, creating a guest
 * account with just that contact when there is none (first name "Guest" unless given, empty last
 * name, no password: the customer claims it for the app with a password reset, whose token goes to
 * that email; a sign-up with the email is a 409, since knowing an email is not owning it). Given
 * both, a contact the customer found lacks is added (contactsToAdd), at the counter only.
 *
 * With `card_number` (an unlinked card at the counter) the card is linked in the same transaction:
 * to the new customer, or — by a cashier or integration key only — to the existing customer the
 * phone or email found. A kiosk may only join a new customer with a card (403
 * card_link_at_counter otherwise: typing someone's email must not attach a stranger's card to their
 * account). Linking follows linkCard's rules (someone else's card 409, value moves to the customer).
 */
export async function registerInStore(engine: Engine, scope: StoreScope, input: InStoreRegistration): Promise<CheckInResult & { created: boolean }> {
  if (!input.phone?.number && !input.email) throw new ServiceError('validation_failed', 'Send phone_number {number, code} or email.', 'phone_number');
  // The customer may be among those still arriving: registering now could make them twice.
  if (!engine.centralLink.firstSyncDone) throw new ServiceError('first_sync_in_progress');
  const counter = counterOf(scope);
  const { result, events } = await onceMoreOnClash(engine.dialect, () => transact(engine, async (trx) => {
    const { vendor, store, pos } = await loadCounterInfo(engine, trx, counter);
    const email = input.email ? cleanEmail(input.email, 'email') : null;
    const phone = input.phone?.number ? cleanPhone(input.phone.number, { callingCode: input.phone.code ?? null, country: store.country }) : null;
    // Before the look-ups: a registration with the same new phone waits, then finds this customer.
    await lockIdentifiers(trx, engine.dialect, { phone });

    const byEmail = email ? await findUserByEmail(trx, emailKey(email)) : undefined;
    const byPhone = phone ? await findUserByPhone(trx, phone) : undefined;
    if (byEmail && byPhone && byEmail.id !== byPhone.id) {
      // Nothing is wrong with the request: what is stored says no (409, as a phone taken at sign-up is).
      throw new ServiceError('phone_taken', 'That email and that phone belong to two different customers.', 'phone_number');
    }
    let user: UserRow | undefined = byEmail?.status === 'deleted' ? undefined : (byEmail ?? byPhone);
    if (user?.status === 'inactive') throw new ServiceError('account_inactive');
    if (user) await refuseBlockedCustomer(trx, vendor.id, user.id);
    const created = user === undefined;
    const card = input.cardNumber === undefined ? null : await findVendorCard(trx, vendor.id, input.cardNumber);
    if (card) {
      unlockCard(engine, card, input.cardPin);
      if (!created && scope.role === 'kiosk') throw new ServiceError('card_link_at_counter', undefined, 'card_number');
    }
    const passport = input.passportNumber === undefined ? undefined : cleanPassportNumber(input.passportNumber);
    if (passport !== undefined) {
      if (!created && scope.role === 'kiosk' && passport !== user!.passport_number) {
        throw new ServiceError('forbidden', "Only the counter can change an existing customer's passport number.", 'passport_number');
      }
      await assertPassportFree(trx, passport, user?.id ?? null);
    }
    if (!user) {
      user = await insertUser(trx, engine, {
        email,
        email_key: email ? emailKey(email) : null,
        password_hash: null,
        first_name: input.firstName ? cleanName(input.firstName, 'first_name') : 'Guest',
        last_name: input.lastName ? cleanName(input.lastName, 'last_name', { allowEmpty: true }) : '',
        phone,
        cedula: null,
        birthdate: null,
        first_vendor_id: vendor.id,
      });
    }
    // A contact the customer found lacks, typed beside the one that found them, is added: the counter
    // vouches for it as for a guest's. Not at a kiosk: anyone can type a guest's phone there, and
    // their own email added to it would let them claim the account (and its balance) by a reset.
    const added = created ? {} : contactsToAdd(user, { email: byEmail ? null : email, phone: byPhone ? null : phone });
    const addsContacts = Object.keys(added).length > 0;
    if (scope.role === 'kiosk' && addsContacts) {
      throw new ServiceError('forbidden', 'Only the counter can add a contact to an existing customer.', 'email' in added ? 'email' : 'phone_number');
    }
    const changes = { ...added, ...(passport !== undefined && passport !== user.passport_number ? { passport_number: passport } : {}) };
    if (!created && Object.keys(changes).length > 0 && !(await mayVouchForContacts(trx, user.id, vendor.id))) {
      const what = addsContacts ? 'add a contact to their account' : 'change their passport number';
      throw new ServiceError('forbidden', `This customer's account is another program's too: only they (in the app) or the program that registered them can ${what}.`, addsContacts ? ('email' in added ? 'email' : 'phone_number') : 'passport_number');
    }
    if (Object.keys(changes).length > 0) {
      await trx.updateTable('users').set({ ...changes, updated_at: engine.clock.now() }).where('id', '=', user.id).execute();
      // Central takes these columns of the change, and only these: not the rest of the store's copy.
      await narrowLooseChange(trx, engine, 'users', user.id, Object.keys(changes));
      if (addsContacts) await recordCustomerEvent(trx, engine, 'customer.updated', { vendorId: vendor.id, userId: user.id });
    }
    await linkUserToVendor(trx, engine, { userId: user.id, vendorId: vendor.id, via: 'counter', byCounter: !created });
    if (card) await linkCard(trx, engine, { vendorId: vendor.id, userId: user.id, card, storeId: store.id });
    const opened = await openSession(trx, engine, counter, { userId: user.id, identifiedBy: 'register', cardNumber: card?.number ?? null, openedBy: scope.role, atKiosk: identifiedAtKiosk(scope.role, {}) });
    return {
      result: { session: opened.session, vendor: { id: vendor.id, name: vendor.name }, pos: pos && { id: pos.id, name: pos.name, status: pos.status }, created },
      events: opened.events,
    };
  }));
  publishAll(engine, events, input.screen ? { screen: input.screen } : {});
  return result;
}

/**
 * The contacts given at the counter that the customer lacks and nobody holds (`email`, `phone`
 * null when absent or held: the look-ups found their holder), as the columns' new values. A
 * contact the customer has is never changed here: that is theirs to do, in the app. Each value
 * keeps one someone else added since this command read the row: on PostgreSQL two counters adding
 * different new phones to one customer found by email take different phone locks, and the later
 * update, which waited on the row, would overwrite the first.
 */
function contactsToAdd(user: UserRow, given: { email: string | null; phone: string | null }) {
  return {
    ...(given.email !== null && user.email === null
      ? { email: sql<string>`coalesce(email, ${given.email})`, email_key: sql<string>`case when email is null then ${emailKey(given.email)} else email_key end` }
      : {}),
    ...(given.phone !== null && user.phone === null ? { phone: sql<string>`coalesce(phone, ${given.phone})` } : {}),
  };
}
