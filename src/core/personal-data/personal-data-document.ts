import type { Kysely } from 'kysely';
import { contactChannels } from '../customers/contact-consent';
import type { Static } from 'typebox';
import { PERSONAL_DATA_VERSION, type PersonalDataSchema } from '../../shared/schemas/personal-data';
import { ServiceError } from '../../shared/errors';
import { toIso } from '../../shared/time';
import type { Engine } from '../engine';
import { findCountryById, findRegion } from '../geo/countries';
import { findUserVendor, loadUser, loadVendor, type UserRow } from '../customers/customer-store';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { DB } from '../storage/schema';

export type PersonalData = Static<typeof PersonalDataSchema>;

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : toIso(Number(ms)));
const int = (value: number | string | bigint): number => Number(value);
const parsed = (text: string | null, fallback: unknown): unknown => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
};

/**
 * Everything one program holds about a person, as one document (shape and version:
 * shared/schemas/personal-data.ts). Read, never written. `view`: `self` for the person, who sees
 * all of it; `staff` sees what the program sees (a member another program's counter enrolled, not
 * yet confirmed here, by name only: seenAtCounter). Never a secret (password hash, session keys,
 * codes, gateway tokens, card PINs) nor a card number; nothing of other people (a referred
 * friend's name, an eGift's other party) nor of other programs. The caller checked the membership.
 */
export async function personalDataDocument(engine: Engine, vendorId: number, userId: number, view: 'self' | 'staff'): Promise<PersonalData> {
  const db = engine.db;
  const [vendor, user, link] = await Promise.all([loadVendor(db, vendorId), loadUser(db, userId), findUserVendor(db, userId, vendorId)]);
  // The callers checked the membership; one that ended since is not found.
  if (!link) throw new ServiceError('customer_not_found');
  const nameOnly = view === 'staff' && link.counter_enrolled === 1;
  const shown = view === 'staff' ? seenAtCounter(user, link) : user;
  const stores = new Map((await db.selectFrom('stores').select(['id', 'name']).where('vendor_id', '=', vendorId).execute()).map((s) => [int(s.id), s.name]));
  const storeName = (id: number | string | null) => (id === null ? null : (stores.get(int(id)) ?? null));
  const [sections, tier, fields] = await Promise.all([
    recordsOf(db, vendorId, userId),
    link.tier_id === null ? undefined : db.selectFrom('tiers').select('name').where('id', '=', link.tier_id).executeTakeFirst(),
    db
      .selectFrom('user_metadata as m')
      .innerJoin('metadata_fields as f', 'f.id', 'm.field_id')
      .select(['f.name', 'm.value'])
      .where('m.user_vendor_id', '=', link.id)
      .orderBy('f.name')
      .execute(),
  ]);
  const push = parsed(link.push_endpoints, {}) as { gcm?: unknown[]; apns?: unknown[] };
  return {
    format: 'punchcard.personal-data',
    version: PERSONAL_DATA_VERSION,
    generated_at: toIso(engine.clock.now()),
    program: { id: int(vendor.id), name: vendor.name },
    person: personOf(shown, nameOnly),
    membership: {
      joined_at: toIso(int(link.created_at)),
      language: link.language,
      contact_consent: contactChannels(Number(link.contact_consent)),
      newsletters: parsed(link.newsletters, {}),
      tier: tier?.name ?? null,
      tier_since: link.tier_id === null ? null : iso(link.tier_since),
      referral_code: link.referral_code,
      joined_through_referral: sections.referredBy,
      auto_reload: { amount: int(link.reload_amount), threshold: int(link.reload_threshold) },
      enrolled_by_another_programs_counter: link.counter_enrolled === 1,
      blocked_at: iso(link.blocked_at),
      blocked_reason: link.blocked_reason,
      flagged: link.flagged === 1,
      flagged_reason: link.flagged_reason,
      app_devices: { android: Array.isArray(push.gcm) ? push.gcm.length : 0, ios: Array.isArray(push.apns) ? push.apns.length : 0 },
      custom_fields: fields.map((f) => ({ field: f.name, value: f.value })),
    },
    balances: sections.balances,
    loyalty_cards: sections.cards.map((c) => ({ number: c.number, status: c.status, linked_at: toIso(int(c.created_at)), removed_at: iso(c.removed_at) })),
    payment_cards: sections.paymentCards.map((b) => ({
      brand: b.brand,
      last4: b.last4,
      expiry_month: int(b.expiry_month),
      expiry_year: int(b.expiry_year),
      default: b.is_default === 1 && b.deleted_at === null,
      saved_at: toIso(int(b.created_at)),
      removed_at: iso(b.deleted_at),
    })),
    ledger: sections.ledger.map((e) => ({
      id: int(e.id),
      currency: e.public_id,
      amount: int(e.amount),
      kind: e.kind,
      at: toIso(int(e.created_at)),
      expires_at: iso(e.expires_at),
      store: e.reference_type === 'order' ? storeName(sections.orderStore.get(e.reference_id ?? '') ?? null) : null,
      receipt_number: e.reference_type === 'order' ? (sections.orderReceipt.get(e.reference_id ?? '') ?? null) : null,
      reverses: e.reverses_id === null ? null : int(e.reverses_id),
    })),
    orders: sections.orders.map((o) => ({
      receipt_number: o.receipt_number,
      store: storeName(o.store_id),
      ordered_at: toIso(int(o.ordered_at)),
      subtotal: int(o.subtotal),
      total: int(o.total),
      items: (parsed(o.items, []) as unknown[]) ?? [],
      quick_pay_used: int(o.quick_pay_used),
      points_earned: int(o.points_earned),
      points_spent: int(o.points_spent),
      status: o.status,
      voided_at: iso(o.voided_at),
    })),
    history: sections.history.map((t) => ({
      kind: t.kind,
      at: toIso(int(t.occurred_at)),
      store: storeName(t.store_id),
      total: int(t.total),
      quick_pay_used: int(t.quick_pay_used),
      quick_pay_loaded: int(t.quick_pay_loaded),
      rating: t.rating_value === null ? null : int(t.rating_value),
      rating_comment: t.rating_comment,
      tip: t.tip_amount === null ? null : int(t.tip_amount),
    })),
    check_ins: sections.checkIns.map((s) => ({
      store: storeName(s.store_id),
      opened_at: toIso(int(s.created_at)),
      closed_at: iso(s.closed_at),
      identified_by: s.identified_by,
      opened_by: s.opened_by,
      card_number: s.card_number,
      status: s.status,
    })),
    payments: sections.charges.map((c) => ({ purpose: c.purpose, amount: int(c.amount), currency: c.currency, status: c.status, at: toIso(int(c.created_at)), completed_at: iso(c.completed_at) })),
    egifts: sections.egifts.map((g) => ({
      role: g.buyer_user_id !== null && int(g.buyer_user_id) === userId ? ('bought' as const) : ('received' as const),
      amount: int(g.amount),
      status: g.status,
      at: toIso(int(g.created_at)),
      claimed_at: iso(g.claimed_at),
    })),
    promotions: sections.promotions.map((p) => ({ name: p.name, at: toIso(int(p.created_at)) })),
    referrals: sections.referrals.map((r) => ({ at: toIso(int(r.created_at)), points: int(r.amount) })),
    inbox: sections.inbox.map((m) => ({ kind: m.kind, title: m.title, body: m.body, at: toIso(int(m.created_at)), read_at: iso(m.read_at), deleted_at: iso(m.deleted_at) })),
    // A member seen by name only: the program does not see where its messages went.
    messages_sent: sections.messages.map((m) => ({ channel: m.channel, to: nameOnly ? '' : m.recipient, template: m.template, status: m.status, at: toIso(int(m.created_at)), sent_at: iso(m.sent_at) })),
    app_sessions: sections.sessions.map((s) => ({ started_at: toIso(int(s.created_at)), expires_at: toIso(int(s.expires_at)), ended_at: iso(s.ended_at) })),
  };
}

function personOf(user: UserRow, nameOnly: boolean): PersonalData['person'] {
  const hidden = <T>(value: T): T | null => (nameOnly ? null : value);
  return {
    id: int(user.id),
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    email_verified_at: hidden(iso(user.email_verified_at)),
    phone: user.phone,
    phone_verified_at: hidden(iso(user.phone_verified_at)),
    national_id: user.cedula,
    passport_number: user.passport_number,
    birthdate: iso(user.birthdate),
    address: {
      line1: hidden(user.address1),
      line2: hidden(user.address2),
      city: hidden(user.city),
      region: hidden(user.region_id === null ? null : (findRegion(int(user.region_id))?.name ?? null)),
      postal_code: hidden(user.postal_code),
      country: hidden(user.country_id === null ? null : (findCountryById(int(user.country_id))?.code ?? null)),
    },
    pet: nameOnly || (user.pet_name === null && user.pet_birthdate === null) ? null : { name: user.pet_name, birthdate: iso(user.pet_birthdate) },
    status: user.status,
    created_at: toIso(int(user.created_at)),
  };
}

/** The person's records at the program, each section oldest first (a file is read top down). */
async function recordsOf(db: Kysely<DB>, vendorId: number, userId: number) {
  const [currencies, accounts] = await Promise.all([
    db.selectFrom('currencies').select(['id', 'public_id', 'name', 'code']).where('vendor_id', '=', vendorId).where('deleted_at', 'is', null).orderBy('id').execute(),
    db.selectFrom('ledger_accounts').select(['id', 'currency_id', 'balance']).where('vendor_id', '=', vendorId).where('holder_type', '=', 'user').where('holder_id', '=', userId).execute(),
  ]);
  const balanceIn = new Map(accounts.map((a) => [int(a.currency_id), int(a.balance)]));
  const accountIds = accounts.map((a) => a.id);
  const [ledger, orders, history, checkIns, cards, paymentCards, charges, egifts, promotions, inbox, messages, sessions, referredBy] = await Promise.all([
    accountIds.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('ledger_entries as e')
          .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
          .innerJoin('currencies as c', 'c.id', 'a.currency_id')
          .select(['e.id', 'c.public_id', 'e.amount', 'e.kind', 'e.reference_type', 'e.reference_id', 'e.reverses_id', 'e.created_at', 'e.expires_at'])
          .where('e.account_id', 'in', accountIds)
          .orderBy('e.created_at')
          .orderBy('e.id')
          .execute(),
    // Only the columns the copy shows: an order's stored replies are kilobytes each (a regular's thousands of orders).
    db
      .selectFrom('orders')
      .select(['id', 'receipt_number', 'store_id', 'ordered_at', 'subtotal', 'total', 'items', 'quick_pay_used', 'points_earned', 'points_spent', 'status', 'voided_at'])
      .where('vendor_id', '=', vendorId).where('user_id', '=', userId).orderBy('ordered_at').orderBy('id').execute(),
    db
      .selectFrom('transactions')
      .select(['kind', 'occurred_at', 'store_id', 'total', 'quick_pay_used', 'quick_pay_loaded', 'rating_value', 'rating_comment', 'tip_amount'])
      .where('vendor_id', '=', vendorId)
      .where('user_id', '=', userId)
      .orderBy('occurred_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('pos_sessions')
      .select(['store_id', 'created_at', 'closed_at', 'identified_by', 'opened_by', 'card_number', 'status'])
      .where('vendor_id', '=', vendorId).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute(),
    db
      .selectFrom('user_cards as l')
      .innerJoin('cards as c', 'c.id', 'l.card_id')
      .select(['c.number', 'l.status', 'l.created_at', 'l.removed_at'])
      .where('l.vendor_id', '=', vendorId)
      .where('l.user_id', '=', userId)
      .orderBy('l.created_at')
      .orderBy('l.id')
      .execute(),
    db
      .selectFrom('billing_profiles')
      .select(['brand', 'last4', 'expiry_month', 'expiry_year', 'is_default', 'created_at', 'deleted_at'])
      .where('vendor_id', '=', vendorId)
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('payment_charges')
      .select(['purpose', 'amount', 'currency', 'status', 'created_at', 'completed_at'])
      .where('vendor_id', '=', vendorId)
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    egiftsOfPersonQuery(db, vendorId, userId).execute(),
    promotionAwardsOfPersonQuery(db, vendorId, userId).execute(),
    db
      .selectFrom('inbox_messages')
      .select(['kind', 'title', 'body', 'created_at', 'read_at', 'deleted_at'])
      .where('vendor_id', '=', vendorId).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute(),
    db
      .selectFrom('messages_outbox')
      .select(['channel', 'recipient', 'template', 'status', 'created_at', 'sent_at'])
      .where('vendor_id', '=', vendorId)
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db.selectFrom('user_sessions').select(['created_at', 'expires_at', 'ended_at']).where('vendor_id', '=', vendorId).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute(),
    // Someone's code brought them here: that member's points entry names this account.
    db
      .selectFrom('ledger_entries')
      .select('id')
      .where('vendor_id', '=', vendorId)
      .where('kind', '=', 'referral')
      .where('reference_type', '=', 'user')
      .where('reference_id', '=', String(userId))
      .limit(1)
      .executeTakeFirst(),
  ]);
  const orderStore = new Map(orders.map((o) => [String(o.id), int(o.store_id)]));
  const orderReceipt = new Map(orders.map((o) => [String(o.id), o.receipt_number]));
  return {
    balances: currencies.map((c) => ({ currency: c.public_id, name: c.name, code: c.code, balance: balanceIn.get(int(c.id)) ?? 0 })),
    // Entries go without their reference ids: a referral's names the friend's account.
    ledger,
    referrals: ledger.filter((e) => e.kind === 'referral' && e.reverses_id === null),
    orderStore,
    orderReceipt,
    orders,
    history,
    checkIns,
    cards,
    paymentCards,
    charges,
    egifts,
    promotions,
    inbox,
    messages,
    sessions,
    referredBy: referredBy !== undefined,
  };
}

// By the person's own indexes (migration 0046; test/storage/query-plans): never every program's rows.

/** The eGifts the person bought or claimed at the program. */
export function egiftsOfPersonQuery(db: Kysely<DB>, vendorId: number, userId: number) {
  return db
    .selectFrom('egifts')
    .select(['buyer_user_id', 'amount', 'status', 'created_at', 'claimed_at'])
    .where('vendor_id', '=', vendorId)
    .where((eb) => eb.or([eb('buyer_user_id', '=', userId), eb('claimed_by_user_id', '=', userId)]))
    .orderBy('created_at')
    .orderBy('id');
}

/** The promotions awarded to the person at the program. */
export function promotionAwardsOfPersonQuery(db: Kysely<DB>, vendorId: number, userId: number) {
  return db
    .selectFrom('promotion_awards as w')
    .innerJoin('promotions as p', 'p.id', 'w.promotion_id')
    .select(['p.name', 'w.created_at'])
    .where('w.vendor_id', '=', vendorId)
    .where('w.user_id', '=', userId)
    .orderBy('w.created_at')
    .orderBy('w.id');
}
