/**
 * Credits that come in lots with a date (points earned by orders, points a promotion awarded,
 * opening points brought from another system: those imported before they were dated have none,
 * and stay).
 */
export const LOT_KINDS = ['earn', 'promotion', 'import'];

/**
 * When points credited at `now` expire under the program's `points_expiry_days` (null: they never
 * do). Every lot follows it: an order's earning, a promotion's award, an import's opening points.
 */
export function earnedPointsExpireAt(expiryDays: number | null, now: number): number | null {
  return expiryDays === null ? null : now + expiryDays * 24 * 3600_000;
}
/** The job's own entries: what it expired, and what it gave back. */
const EXPIRY_KINDS = ['expiry', 'expiry_return'];

export interface StandingEntry {
  id: number;
  amount: number;
  kind: string;
  expiresAt: number | null;
  reversesId: number | null;
  createdAt: number;
}

interface Lot {
  remaining: number;
  expiresAt: number;
}

/**
 * How many points of an account should have expired by `now`, replaying its entries in the order
 * they were made. Spending takes the soonest-expiring lot first, then points without a date (an
 * adjustment, a refund, a transfer); a lot's date takes what is left of it. An entry and its
 * reversals (a void, a refund) count as one entry of their net amount at the entry's time — as if
 * the voided part had never been — so a lot voided after its date expires nothing, and a spend
 * that used a lot voided later used nothing: the customer owes it (a balance below zero stays).
 * A spend beyond what is there leaves a debt the next credit pays first. The job's own entries
 * (expiry, expiry_return) are what this is compared with, not part of it.
 */
export function pointsDueToHaveExpired(entries: readonly StandingEntry[], now: number): number {
  const net = new Map(entries.map((entry) => [entry.id, entry.amount]));
  const folded = new Set<number>();
  for (const entry of entries) {
    if (entry.reversesId === null || !net.has(entry.reversesId) || EXPIRY_KINDS.includes(entry.kind)) continue;
    net.set(entry.reversesId, net.get(entry.reversesId)! + entry.amount);
    folded.add(entry.id);
  }
  const lots: Lot[] = [];
  let undated = 0;
  let expired = 0;
  const expireUpTo = (time: number) => {
    for (const lot of lots) {
      if (lot.expiresAt > time || lot.remaining === 0) continue;
      expired += lot.remaining;
      lot.remaining = 0;
    }
  };
  const ordered = [...entries].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
  for (const entry of ordered) {
    if (folded.has(entry.id) || EXPIRY_KINDS.includes(entry.kind)) continue;
    const amount = net.get(entry.id)!;
    expireUpTo(entry.createdAt);
    if (amount > 0 && LOT_KINDS.includes(entry.kind) && entry.expiresAt !== null) {
      const lot = { remaining: amount, expiresAt: entry.expiresAt };
      const paysDebt = Math.min(amount, Math.max(0, -undated));
      lot.remaining -= paysDebt;
      undated += paysDebt;
      lots.push(lot);
      lots.sort((a, b) => a.expiresAt - b.expiresAt);
    } else if (amount > 0) {
      undated += amount;
    } else if (amount < 0) {
      let owed = -amount;
      for (const lot of lots) {
        const taken = Math.min(lot.remaining, owed);
        lot.remaining -= taken;
        owed -= taken;
        if (owed === 0) break;
      }
      undated -= owed;
    }
  }
  expireUpTo(now);
  return expired;
}
