import type { HistoryRecord } from '../api/history-api';
import type { OrderReply } from '../api/orders-api';
import type { CustomerAtCounter } from '../api/terminal-api';
import { readHistoryRecord } from './history-lines';

// Pure readings of the retrieve-customer reply for the panel, and the panel's updates after an
// order (the order closes the session, so the panel cannot read it again).

type LoyaltyEntry = CustomerAtCounter['loyalty_balance']['data'][number];
type Expiring = LoyaltyEntry['expiring'];

/** The soonest expiry of a balance: its date (Unix s) and amount, capped at the balance; null when nothing expires. */
export function nextExpiring(expiring: Expiring, balance: number): { date: number; amount: number } | null {
  const first = [...expiring.data].sort((a, b) => a.date - b.date).find((e) => e.amount > 0);
  if (!first || balance <= 0) return null;
  return { date: first.date, amount: Math.min(first.amount, balance) };
}

/** Auto reload: off, or "reloads `amount` when the balance falls below `threshold`". */
export function autoReload(reload: CustomerAtCounter['reload']): { on: false } | { on: true; amount: number; threshold: number } {
  // The contract: amount 0, threshold 0 or no billing profile disables it.
  if (reload.amount <= 0 || reload.threshold <= 0 || reload.billing_profile === null) return { on: false };
  return { on: true, amount: reload.amount, threshold: reload.threshold };
}

/** A reward the cashier can redeem, as read from `rules.spending.data`. */
export interface RewardOption {
  id: string;
  name: string;
  cost: number;
  currency: { id: number | null; name: string };
  summary: string | null;
  /** The customer holds enough of its currency (and the node did not say otherwise). */
  affordable: boolean;
  /** The customer's balance in its currency. */
  balance: number;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Rewards offered at this counter. The node's retrieve reply lists them under `rules.spending.data`
 * (shape not fixed by the contract): each needs an id and a cost; name, currency and an `available`
 * flag are read when present, and affordability is judged against the customer's balances.
 */
export function rewardOptions(customer: CustomerAtCounter): RewardOption[] {
  const balances = customer.loyalty_balance.data;
  const options: RewardOption[] = [];
  for (const raw of customer.rules.spending.data) {
    if (!raw || typeof raw !== 'object') continue;
    const r = raw as Record<string, unknown>;
    const id = str(r.id) ?? str(r.reward);
    const cost = num(r.cost) ?? num(r.points);
    if (!id || cost === null) continue;
    const c = (r.currency && typeof r.currency === 'object' ? r.currency : {}) as Record<string, unknown>;
    const currencyId = num(c.id);
    const currencyName = str(c.name) ?? str(r.currency) ?? balances[0]?.currency.name ?? '';
    const balance = balances.find((b) => (currencyId !== null ? b.currency.id === currencyId : b.currency.name === currencyName))?.amount ?? 0;
    options.push({
      id,
      name: str(r.name) ?? id,
      cost,
      currency: { id: currencyId, name: currencyName },
      summary: str(r.summary),
      affordable: r.available !== false && balance >= cost,
      balance,
    });
  }
  return options;
}

/** A reward in the order form: whether it can be ticked now, and if not why. */
export interface RewardChoice {
  reward: RewardOption;
  /** Not tickable: the node says it is not available, the customer lacks it altogether, or what is left after the rewards ticked. */
  blocked: null | 'unavailable' | 'notEnough' | 'notEnoughLeft';
  /** What is left of the reward's currency after the rewards ticked (in that currency). */
  left: number;
}

const currencyKey = (reward: RewardOption) => (reward.currency.id !== null ? `id:${reward.currency.id}` : `name:${reward.currency.name}`);

/**
 * The order form's rewards with the ones ticked (`ticked`, ids): a reward not ticked is blocked when
 * it costs more than the balance of its currency left after the ticked ones in that currency, so
 * the cashier cannot tick together what the customer cannot pay (the node would refuse the order).
 * A ticked reward stays tickable (it can always be unticked).
 */
export function rewardChoices(rewards: readonly RewardOption[], ticked: readonly string[]): RewardChoice[] {
  const spent = new Map<string, number>();
  for (const id of ticked) {
    const reward = rewards.find((r) => r.id === id);
    if (reward) spent.set(currencyKey(reward), (spent.get(currencyKey(reward)) ?? 0) + reward.cost);
  }
  return rewards.map((reward) => {
    const left = reward.balance - (spent.get(currencyKey(reward)) ?? 0);
    if (ticked.includes(reward.id)) return { reward, blocked: null, left };
    if (!reward.affordable) return { reward, blocked: reward.balance >= reward.cost ? 'unavailable' : 'notEnough', left };
    return { reward, blocked: reward.cost > left ? 'notEnoughLeft' : null, left };
  });
}

/**
 * What is still to expire once a balance moved to `balance`, with `newLots` points earned by the
 * move (they expire after everything shown). As the node counts it (core/balances/expirations.ts),
 * spending uses the soonest-expiring points first: whatever the shown amounts and the new lots hold
 * beyond the balance is taken from the soonest days. Without it a redemption left the panel saying
 * points expire that were just spent.
 */
export function expiringAfter(expiring: Expiring, balance: number, newLots: number): Expiring {
  let excess = expiring.data.reduce((sum, e) => sum + e.amount, 0) + newLots - Math.max(balance, 0);
  if (excess <= 0) return expiring;
  const data: Expiring['data'] = [];
  for (const day of [...expiring.data].sort((a, b) => a.date - b.date)) {
    const used = Math.min(excess, day.amount);
    excess -= used;
    if (day.amount > used) data.push({ date: day.date, amount: day.amount - used });
  }
  return { ...expiring, data, count: data.length };
}

/** The customer as an order reply leaves them: the balances after it (what expires next with them, as the node says when it does), and the tier it left. */
export function withOrderBalances(customer: CustomerAtCounter, reply: Pick<OrderReply, 'balances' | 'earned'> & { tier?: OrderReply['tier'] }): CustomerAtCounter {
  const { balances, tier } = reply;
  const loyalty = customer.loyalty_balance.data.map((entry) => {
    const after = balances.loyalty.find((b) => b.currency.id === entry.currency.id);
    if (!after) return entry;
    const earned = reply.earned.filter((e) => e.currency.id === entry.currency.id).reduce((sum, e) => sum + e.points, 0);
    // The node says what expires (the points just earned included); a node of an earlier version does not.
    return { ...entry, amount: after.amount, expiring: after.expiring ?? expiringAfter(entry.expiring, after.amount, earned) };
  });
  for (const b of balances.loyalty) {
    if (!loyalty.some((e) => e.currency.id === b.currency.id)) {
      loyalty.push({ amount: b.amount, currency: b.currency, expiring: b.expiring ?? { data: [], page_size: 25, count: 0, page: 1 } });
    }
  }
  return {
    ...customer,
    // The tier the order left (a promotion shows at once); a node of an earlier version sends none.
    ...(tier ? { user: { ...customer.user, tier: tier.current }, rules: { ...customer.rules, tier: { ...customer.rules.tier, current: tier.current, next: tier.next } } } : {}),
    loyalty_balance: { data: loyalty },
    quick_pay_balance: { ...customer.quick_pay_balance, amount: balances.quick_pay.amount, currency: customer.quick_pay_balance.currency ?? balances.quick_pay.currency },
  };
}

/**
 * The customer after a history record the panel did not make: an order placed elsewhere (the POS),
 * or the void of one. Quick pay takes the balance the record states; loyalty moves by the points
 * it moved, signed as the history reads them (earned +, redeemed −; a void's reversals the other
 * way), by currency name.
 *
 * What a void gives back expires as the points it gives back did (a redemption took the soonest
 * first), which the record does not say. `read`: the balances the retrieve read before the panel's
 * sale — a void that brings a balance back to what was read then (it undid that sale) shows what
 * was read to expire then; any other keeps what was shown (it showed the spent points' lots gone:
 * "9 expire on Dec 21" for 12 stamps whose 4 given back expire on Nov 26).
 */
export function applyHistoryRecord(customer: CustomerAtCounter, record: HistoryRecord, read: readonly LoyaltyEntry[] = []): CustomerAtCounter {
  const delta = new Map<string, number>();
  const earned = new Map<string, number>();
  const line = readHistoryRecord(record);
  for (const move of line.points) {
    delta.set(move.currency, (delta.get(move.currency) ?? 0) + move.amount);
    if (move.amount > 0) earned.set(move.currency, (earned.get(move.currency) ?? 0) + move.amount);
  }
  // A sale's earned points expire after everything shown; what a void puts back is not known to expire.
  const moved = (e: LoyaltyEntry): LoyaltyEntry => {
    const amount = e.amount + (delta.get(e.currency.name) ?? 0);
    if (line.kind !== 'void') return { ...e, amount, expiring: expiringAfter(e.expiring, amount, earned.get(e.currency.name) ?? 0) };
    const before = read.find((r) => r.currency.id === e.currency.id);
    return { ...e, amount, expiring: before && before.amount === amount ? before.expiring : e.expiring };
  };
  return {
    ...customer,
    loyalty_balance: { data: customer.loyalty_balance.data.map(moved) },
    quick_pay_balance: { ...customer.quick_pay_balance, amount: record.quickpay.balance },
  };
}

type TierRules = CustomerAtCounter['rules']['tier'];
type TierRef = NonNullable<TierRules['current']>;

/** The tier a history record moved the member to (`tier_change`: its tier entry's `to`); null for any other record. */
export function tierMovedTo(record: HistoryRecord): string | null {
  if (record.object !== 'tier_change') return null;
  const to = (record.rewards ?? []).find((r) => r.kind === 'tier')?.to;
  return typeof to === 'string' && to !== '' ? to : null;
}

/**
 * The customer after a tier move the history tells (a void took back the tier its sale got). The
 * record names tiers only, so the tier and the next one up are taken from what a reply said of
 * that tier — `stated`: the retrieve read before the panel's order, whose tier the void goes back
 * to — and a tier no reply described shows by its name alone, with no next tier (not known here).
 */
export function withTierMove(customer: CustomerAtCounter, record: HistoryRecord, stated: readonly TierRules[]): CustomerAtCounter {
  const to = tierMovedTo(record);
  if (to === null || customer.user.tier?.name === to) return customer;
  const known = [customer.rules.tier, ...stated];
  const said = known.find((rules) => rules.current?.name === to);
  const described = known.flatMap((rules) => [rules.current, rules.next]).find((tier): tier is TierRef => tier?.name === to);
  const current: TierRef = said?.current ?? described ?? { object: 'tier', id: 0, name: to, summary: '', description: '', threshold: 0 };
  return {
    ...customer,
    user: { ...customer.user, tier: current },
    rules: { ...customer.rules, tier: { ...customer.rules.tier, current, next: said ? said.next : null } },
  };
}
