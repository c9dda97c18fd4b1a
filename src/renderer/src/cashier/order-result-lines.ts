import type { OrderReply } from '../api/orders-api';
import { formatMoney, formatPoints } from '../format';
import type { AutoReloadState } from './customer-store';
import type { CashierStrings } from './strings';

type LineStrings = Pick<CashierStrings, 'pointsEarned' | 'earnedRule' | 'pointsSpent' | 'quickPayUsed' | 'autoReloadQueued' | 'autoReloadArrived' | 'autoReloadDeclined'>;

/**
 * The lines of an order's result on the panel: points earned, one line per currency with the rules
 * that gave them named ("Points earned: 18,000 (1 per dollar: 12,000, Big spender: 6,000)"; one
 * rule: "Points earned: 12 (1 per dollar)"), rewards redeemed, quick pay used, and the auto reload
 * the order queued (on its way, then what its history record said).
 */
export function orderResultLines(order: OrderReply, reload: AutoReloadState | null, t: LineStrings, language: string, code: string | null, country: string | null = null): string[] {
  const points = (n: number) => formatPoints(n, language, code, country);
  const money = (n: number) => formatMoney(n, code, language, country);
  // By currency, in the reply's order; rules without a name are counted, not named.
  const earned = new Map<string, { currency: string; total: number; rules: Array<{ rule: string; points: number }> }>();
  for (const e of order.earned) {
    const key = `${e.currency.id}`;
    const entry = earned.get(key) ?? { currency: e.currency.name, total: 0, rules: [] };
    entry.total += e.points;
    if (e.rule) entry.rules.push({ rule: e.rule, points: e.points });
    earned.set(key, entry);
  }
  const earnedLines = [...earned.values()].map(({ currency, total, rules }) => {
    const named = rules.length === 1 && rules[0]!.points === total ? rules[0]!.rule : rules.map((r) => t.earnedRule(r.rule, points(r.points))).join(', ');
    return t.pointsEarned(points(total), currency) + (named ? ` (${named})` : '');
  });
  const reloadLine =
    reload?.status === 'arrived'
      ? t.autoReloadArrived(money(reload.amount), money(reload.balance))
      : reload?.status === 'declined'
        ? t.autoReloadDeclined(money(reload.amount))
        : order.auto_reload_queued
          ? t.autoReloadQueued
          : null;
  return [
    ...earnedLines,
    ...order.redeemed.map((r) => `${t.pointsSpent(points(r.cost), r.currency.name)} (${r.name})`),
    ...(order.quick_pay_used > 0 ? [t.quickPayUsed(money(order.quick_pay_used))] : []),
    ...(reloadLine ? [reloadLine] : []),
  ];
}
