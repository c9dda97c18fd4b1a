import type { CurrencyBalance } from '../../core/balances/customer-balances';
import { toMajorUnits } from '../../shared/money';
import type { CheckInResult } from '../../core/onscreen/check-in';
import type { PosSessionRow } from '../../core/onscreen/pos-session';
import type { QueueEntry } from '../../core/onscreen/queue';
import type { CustomerAtCounter } from '../../core/onscreen/retrieve-customer';
import type { StoreScope } from '../../core/credentials/authenticate';
import { toUnixSeconds } from '../../shared/time';
import type { BillingProfileRecord } from '../../core/payments/billing-profiles/billing-profile';
import { billingProfileWire } from './payments-wire';

const SESSION_STATUS: Record<string, { id: number; name: string }> = { active: { id: 1, name: 'Active' }, closed: { id: 2, name: 'Closed' } };
const ACTIVE = { id: 1, name: 'Active' };

/** The program's modules, as integrations read them from the check-in reply. */
const MODULES = [
  { object: 'module' as const, id: 1, name: 'Loyalty' },
  { object: 'module' as const, id: 2, name: 'Quick Pay' },
  { object: 'module' as const, id: 3, name: 'Rewards' },
];

function modules() {
  return { object: 'collection' as const, data: MODULES, page_size: MODULES.length, count: MODULES.length, page: 1 };
}

export function posSessionWire(session: PosSessionRow) {
  return {
    id: session.id,
    object: 'pos_session' as const,
    hash: session.hash,
    date_created: toUnixSeconds(session.created_at),
    date_updated: toUnixSeconds(session.updated_at),
    status: SESSION_STATUS[session.status] ?? ACTIVE,
  };
}

export function checkInWire(result: CheckInResult, scope: StoreScope) {
  return {
    pos_session: posSessionWire(result.session),
    vendor: {
      object: 'vendor' as const,
      id: result.vendor.id,
      point_of_sale: result.pos && { object: 'point_of_sale' as const, id: result.pos.id, name: result.pos.name, status: ACTIVE },
      modules: modules(),
    },
    api_key: { object: 'api_key' as const, workstation_identifier: scope.workstationIdentifier },
  };
}

/** The in-store register reply: its point_of_sale has the shape {pointOfSale_id, name}. */
export function registerWire(result: CheckInResult, scope: StoreScope) {
  const reply = checkInWire(result, scope);
  return { ...reply, vendor: { ...reply.vendor, point_of_sale: result.pos && { pointOfSale_id: result.pos.id, name: result.pos.name } } };
}

/** A queue entry; its `vendor` is the store the session is at ({vendor_id: store id, name: store name}). */
export function queueEntryWire(entry: QueueEntry) {
  return {
    pos_session: {
      id: entry.id,
      object: 'pos_session' as const,
      hash: entry.hash,
      date_created: toUnixSeconds(entry.createdAt),
      date_updated: toUnixSeconds(entry.updatedAt),
      status: SESSION_STATUS[entry.status] ?? ACTIVE,
      vendor: { vendor_id: entry.storeId, name: entry.storeName },
      user: { user_id: String(entry.user.id), first_name: entry.user.firstName, last_name: entry.user.lastName, email_address: entry.user.email ?? '' },
      table_number: entry.tableNumber,
      redemptions: [],
      payments: [],
    },
  };
}

function currencyRef(balance: Pick<CurrencyBalance, 'currency'>) {
  return { id: balance.currency.id, name: balance.currency.name, code: balance.currency.code };
}

function expiringWire(balance: CurrencyBalance | undefined, digits: number | null) {
  const data = (balance?.expiring ?? []).map((e) => ({ date: toUnixSeconds(e.at), amount: digits === null ? e.amount : toMajorUnits(e.amount, digits) }));
  return { data, page_size: Math.max(data.length, 25), count: data.length, page: 1 };
}

function tierWire(tier: CustomerAtCounter['nextTier']) {
  return tier && { object: 'tier' as const, id: tier.id, name: tier.name, summary: tier.summary, description: tier.description, threshold: tier.threshold };
}

export function retrieveWire(c: CustomerAtCounter, billingProfile: BillingProfileRecord | null = null) {
  const { user, link, vendor, tier, moneyDigits } = c.membership;
  const quickPay = c.balances.find((b) => b.quickPay);
  const loyalty = c.balances.filter((b) => b.currency.code === null);
  return {
    pos_session: {
      pos_session_id: String(c.session.id),
      object: 'pos_session' as const,
      hash: c.session.hash,
      status: SESSION_STATUS[c.session.status] ?? ACTIVE,
      card: c.session.card_number,
      card_third_party: null,
      // App tokens are kept only as digests, so the one used cannot be shown back.
      token: null,
    },
    user: {
      object: 'user' as const,
      id: String(user.id),
      first_name: user.first_name,
      last_name: user.last_name,
      email_address: user.email ?? '',
      phone_number: user.phone ?? '',
      birthdate: user.birthdate === null ? null : toUnixSeconds(user.birthdate),
      language: link.language ?? vendor.language,
      contact_consent: link.contact_consent,
      member_since: toUnixSeconds(link.created_at),
      is_verified: user.email_verified_at !== null || user.phone_verified_at !== null,
      flagged: link.flagged === 1,
      tier: tierWire(tier),
    },
    favourite_items: c.favouriteItems.map((f) => ({ object: 'item' as const, name: f.name, sku: f.sku, quantity: f.quantity, orders: f.orders })),
    reload: { amount: toMajorUnits(link.reload_amount, moneyDigits), threshold: toMajorUnits(link.reload_threshold, moneyDigits), billing_profile: billingProfile && billingProfileWire(billingProfile) },
    favorite: null,
    last_visit: c.lastVisit && { date: toUnixSeconds(c.lastVisit.at), store: { id: c.lastVisit.storeId, name: c.lastVisit.storeName } },
    loyalty_balance: { data: loyalty.map((b) => ({ amount: b.balance, currency: currencyRef(b), expiring: expiringWire(b, null) })) },
    quick_pay_balance: {
      amount: quickPay ? toMajorUnits(quickPay.balance, moneyDigits) : 0,
      currency: quickPay ? currencyRef(quickPay) : null,
      expiring: expiringWire(quickPay, moneyDigits),
    },
    rules: {
      earning: {
        object: 'earning_rules' as const,
        data: c.earningRules.flatMap((rule) => {
          const currency = c.balances.find((b) => b.currency.id === rule.currency_id);
          if (!currency) return [];
          return [
            {
              id: rule.id,
              name: rule.name,
              currency: currencyRef(currency),
              points: rule.points,
              per_amount: toMajorUnits(rule.per_amount, moneyDigits),
              rounding: rule.rounding,
              max_award: rule.max_award,
              starts: rule.starts_at === null ? null : toUnixSeconds(rule.starts_at),
              ends: rule.ends_at === null ? null : toUnixSeconds(rule.ends_at),
            },
          ];
        }),
      },
      spending: {
        object: 'spending_rules' as const,
        data: c.rewards.map((r) => ({
          object: 'reward' as const,
          id: r.publicId,
          name: r.name,
          summary: r.summary,
          cost: r.cost,
          currency: currencyRef({ currency: r.currency }),
          available: r.available,
          expires: r.expiresAt === null ? null : toUnixSeconds(r.expiresAt),
        })),
      },
      tier: { object: 'tier_rules' as const, current: tierWire(tier), next: tierWire(c.nextTier), currency: c.tierCurrency && { ...c.tierCurrency, code: null } },
    },
  };
}
