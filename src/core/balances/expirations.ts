const DAY_MS = 24 * 3600_000;

/** Which day an instant falls on, as a key: equal keys are one day. */
export type DayOf = (epochMs: number) => number | string;

/** The UTC day: the interface's replies group expirations by it. */
export const utcDay: DayOf = (epochMs) => Math.floor(epochMs / DAY_MS);

export interface ExpiringAmount {
  /** The soonest expiry moment of that day (epoch ms). */
  at: number;
  /** Minor units. */
  amount: number;
}

/**
 * Upcoming expirations of one account grouped by day (UTC unless `dayOf` says), soonest first.
 * `lots` are its future expiring credits, soonest first. Spending is taken to use the soonest-expiring value first, so
 * the amounts shown never add up to more than the balance: any excess is removed from the soonest
 * lots (a customer with 100 points earned and 80 spent sees at most 20 expiring).
 */
export function expiringByDay(lots: ReadonlyArray<{ amount: number; expiresAt: number }>, balance: number, dayOf: DayOf = utcDay): ExpiringAmount[] {
  let excess = lots.reduce((sum, lot) => sum + lot.amount, 0) - Math.max(balance, 0);
  const days: ExpiringAmount[] = [];
  let currentDay: number | string | undefined;
  for (const lot of lots) {
    const used = Math.min(Math.max(excess, 0), lot.amount);
    excess -= used;
    const amount = lot.amount - used;
    if (amount === 0) continue;
    const day = dayOf(lot.expiresAt);
    const last = days.at(-1);
    if (last && day === currentDay) last.amount += amount;
    else days.push({ at: lot.expiresAt, amount });
    currentDay = day;
  }
  return days;
}
