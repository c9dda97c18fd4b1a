import { ServiceError } from '../../shared/errors';
import type { StoreScope } from '../credentials/authenticate';
import { cleanEmail, cleanName, cleanPhone, emailKey } from '../customers/contact';
import { findUserByEmail, findUserByPhone, insertUser, linkUserToVendor, loadVendor, type UserRow } from '../customers/customer-store';
import { type Engine, transact } from '../engine';
import type { CheckInResult } from './check-in';
import { counterOf, loadCounterInfo, openSession, publishAll } from './pos-session';

export interface InStoreRegistration {
  phone?: { number: string; code?: string | undefined } | undefined;
  email?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
}

/**
 * POST /onscreen/register: checks in the customer with that phone or email, creating a guest
 * account with just that contact when there is none (first name "Guest" unless given, empty last
 * name, no password: the customer completes it later by registering with the same email or by a
 * password reset).
 */
export async function registerInStore(engine: Engine, scope: StoreScope, input: InStoreRegistration): Promise<CheckInResult & { created: boolean }> {
  if (!input.phone?.number && !input.email) throw new ServiceError('validation_failed', 'Send phone_number {number, code} or email.', 'phone_number');
  const counter = counterOf(scope);
  const { result, events } = await transact(engine, async (trx) => {
    const vendor = await loadVendor(trx, counter.vendorId);
    const { store, pos } = await loadCounterInfo(trx, counter);
    const email = input.email ? cleanEmail(input.email, 'email') : null;
    const phone = input.phone?.number ? cleanPhone(input.phone.number, { callingCode: input.phone.code ?? null, country: store.country }) : null;

    const byEmail = email ? await findUserByEmail(trx, emailKey(email)) : undefined;
    const byPhone = phone ? await findUserByPhone(trx, phone) : undefined;
    if (byEmail && byPhone && byEmail.id !== byPhone.id) {
      throw new ServiceError('validation_failed', 'That email and that phone belong to two different customers.', 'phone_number');
    }
    let user: UserRow | undefined = byEmail?.status === 'deleted' ? undefined : (byEmail ?? byPhone);
    if (user?.status === 'inactive') throw new ServiceError('account_inactive');
    const created = user === undefined;
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
    await linkUserToVendor(trx, engine, { userId: user.id, vendorId: vendor.id, byCounter: !created });
    const opened = await openSession(trx, engine, counter, { userId: user.id, identifiedBy: 'register', cardNumber: null, openedBy: scope.role });
    return {
      result: { session: opened.session, vendor: { id: vendor.id, name: vendor.name }, pos: pos && { id: pos.id, name: pos.name, status: pos.status }, created },
      events: opened.events,
    };
  });
  publishAll(engine, events);
  return result;
}
