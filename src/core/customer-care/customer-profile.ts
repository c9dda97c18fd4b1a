import { holderAccounts, upcomingLots } from '../balances/balance-store';
import { type ExpiringAmount, expiringByDay } from '../balances/expirations';
import type { Engine } from '../engine';
import { findUserVendor, loadUser, survivingCustomerId } from '../customers/customer-store';
import { type ContactChannels, contactChannels } from '../customers/contact-consent';
import { seenAtCounter } from '../customers/seen-at-counter';
import { localDayOf, zoneOrUtc } from '../dashboard/time-zone-days';
import { liveBillingProfiles } from '../payments/billing-profiles/billing-profile';
import { programTimeZone } from '../stores/program-time-zone';
import { checkCustomerAccess } from './customer-access';
import { type CustomerLedgerEntry, customerLedger } from './customer-ledger';

export interface CustomerProfile {
  id: number;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  cedula: string | null;
  /** Date of birth, epoch ms of its UTC midnight (users.birthdate); null when not known or hidden (counterEnrolled). */
  birthdate: number | null;
  status: string;
  /** What the member agreed to be contacted by in this program. */
  contactConsent: ContactChannels;
  /** The language chosen with this program; null: the program's. */
  language: string | null;
  /** When they joined this program (the membership's creation), epoch ms. */
  memberSince: number;
  /**
   * Enrolled by a counter from another program and not yet confirmed by the customer here: the
   * program sees the first name and the last name's initial only (seenAtCounter).
   */
  counterEnrolled: boolean;
  flagged: boolean;
  /** Blocked in this program (refused at check-in and orders), and why. */
  blocked: boolean;
  blockedReason: string | null;
  /** The program's time zone (UTC when this node cannot read it): expiring amounts are grouped by its days. */
  timeZone: string;
  /** Every currency of the program, with what of the balance expires when (by the program's day, soonest first). */
  balances: Array<{ currencyId: string; currencyName: string; code: string | null; balance: number; expiring: ExpiringAmount[] }>;
  /** Saved cards, masked: brand, last four digits and expiry only (never the token, name or postal code). */
  billingProfiles: Array<{ brand: string; last4: string; expiryMonth: number; expiryYear: number; isDefault: boolean }>;
  cards: Array<{ number: string; status: string }>;
  entries: CustomerLedgerEntry[];
}

/**
 * A customer as the back office shows them: profile, balances per currency with their expiring
 * amounts, cards, masked billing profiles and the latest ledger entries (with their order's store
 * and receipt). An id merged into another customer shows the one it was merged into. A member the counter enrolled from another program
 * shows as the counter sees them (seenAtCounter) until they confirm the membership.
 */
export async function customerProfile(engine: Engine, vendorId: number, onlyStoreId: number | null, requestedId: number): Promise<CustomerProfile> {
  const userId = await survivingCustomerId(engine.db, requestedId);
  const link = await checkCustomerAccess(engine.db, vendorId, onlyStoreId, userId);
  const [user, membership] = await Promise.all([loadUser(engine.db, userId), findUserVendor(engine.db, userId, vendorId)]);
  const shown = seenAtCounter(user, membership);
  const [currencies, accounts, cards, entries, profiles, programZone] = await Promise.all([
    engine.db.selectFrom('currencies').select(['id', 'public_id', 'name', 'code']).where('vendor_id', '=', vendorId).where('deleted_at', 'is', null).orderBy('id').execute(),
    holderAccounts(engine.db, vendorId, 'user', userId),
    engine.db
      .selectFrom('user_cards as l')
      .innerJoin('cards as c', 'c.id', 'l.card_id')
      .select(['c.number', 'c.status'])
      .where('l.user_id', '=', userId)
      .where('l.vendor_id', '=', vendorId)
      .where('l.removed_at', 'is', null)
      .execute(),
    customerLedger(engine.db, vendorId, userId),
    liveBillingProfiles(engine.db, { vendorId, userId })
      .select(['brand', 'last4', 'expiry_month', 'expiry_year', 'is_default'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
    programTimeZone(engine.db, vendorId),
  ]);
  // Grouped by the program's days, in UTC where this node cannot read its zone (and said so).
  const timeZone = zoneOrUtc(programZone);
  const dayOf = (at: number) => localDayOf(timeZone, at);
  const lots = await upcomingLots(
    engine.db,
    [...accounts.values()].map((a) => a.accountId),
    engine.clock.now(),
  );
  const balanceIn = (currencyId: number) => {
    const account = accounts.get(currencyId);
    if (!account) return { balance: 0, expiring: [] };
    return { balance: account.balance, expiring: expiringByDay(lots.filter((lot) => lot.accountId === account.accountId), account.balance, dayOf) };
  };
  return {
    id: user.id,
    firstName: shown.first_name,
    lastName: shown.last_name,
    email: shown.email,
    phone: shown.phone,
    cedula: shown.cedula,
    birthdate: shown.birthdate,
    status: user.status,
    contactConsent: contactChannels(membership?.contact_consent ?? 0),
    language: membership?.language ?? null,
    memberSince: membership?.created_at ?? user.created_at,
    counterEnrolled: membership?.counter_enrolled === 1,
    flagged: link.flagged === 1,
    blocked: link.blocked_at !== null,
    blockedReason: link.blocked_reason,
    timeZone,
    balances: currencies.map((c) => ({ currencyId: c.public_id, currencyName: c.name, code: c.code, ...balanceIn(c.id) })),
    billingProfiles: profiles.map((b) => ({ brand: b.brand, last4: b.last4, expiryMonth: b.expiry_month, expiryYear: b.expiry_year, isDefault: b.is_default === 1 })),
    cards: cards.map((c) => ({ number: c.number, status: c.status })),
    entries,
  };
}
