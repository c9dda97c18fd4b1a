import type { Selectable } from 'kysely';
import type { EarningRulesTable } from '../storage/schema';

export type EarningRule = Selectable<EarningRulesTable>;

/**
 * Points a rule awards for a subtotal (minor units): `points` for every `per_amount` of subtotal,
 * the number of units rounded as the rule says (floor, round or ceil), capped at `max_award`.
 */
export function pointsFor(rule: EarningRule, subtotalMinor: number): number {
  if (subtotalMinor <= 0 || rule.per_amount <= 0) return 0;
  const units = subtotalMinor / rule.per_amount;
  const rounded = rule.rounding === 'ceil' ? Math.ceil(units) : rule.rounding === 'round' ? Math.round(units) : Math.floor(units);
  const points = rounded * rule.points;
  return rule.max_award === null ? points : Math.min(points, rule.max_award);
}

/** An earning rule or reward is in force at `at`: ACTIVE and inside its date window. */
export function ruleApplies(rule: Pick<EarningRule, 'status' | 'starts_at' | 'ends_at'>, at: number): boolean {
  return rule.status === 'ACTIVE' && (rule.starts_at === null || rule.starts_at <= at) && (rule.ends_at === null || rule.ends_at > at);
}
