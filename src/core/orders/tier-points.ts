import { type Kysely, sql } from 'kysely';
import { standingEntry } from '../expiry/expire-points';
import { tierCurrencyQuery } from '../rules/tiers/tier-currency';
import type { DB } from '../storage/schema';

type Member = { vendorId: number; userId: number };
const DAY = 24 * 3600_000;

/**
 * A member's ledger entries with a vendor that count toward a tier: the program's tier currency
 * only (tier-currency.ts; stamps and points are not added up), earn entries and their voids
 * (spending never counts against a tier); a void repeated at two nodes counts once (its undone
 * reversal is left out).
 */
function tierEntries(db: Kysely<DB>, member: Member) {
  return db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .where('a.holder_type', '=', 'user')
    .where('a.holder_id', '=', member.userId)
    .where('a.vendor_id', '=', member.vendorId)
    .where('a.currency_id', '=', tierCurrencyQuery(db, member.vendorId))
    .where('e.kind', 'in', ['earn', 'earn_reversal'])
    .where(standingEntry);
}

/** When an entry counts: a void on the day of the sale it reverses (voiding an order from before the window must not take its points out of the window's). */
const saleDate = sql<number>`coalesce(lot.created_at, e.created_at)`;

/**
 * Points a member earned with a vendor that count toward a tier (tierEntries), net of their voids,
 * earned in the `windowDays` before `now`, or all time when the tier has no window.
 */
export async function tierPoints(db: Kysely<DB>, member: Member, windowDays: number | null, now: number): Promise<number> {
  const { points } = await tierPointsQuery(db, member, windowDays, now).executeTakeFirstOrThrow();
  return Number(points);
}

/** tierPoints' query (exported for the test of its plan). */
export function tierPointsQuery(db: Kysely<DB>, member: Member, windowDays: number | null, now: number) {
  return tierEntries(db, member)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('e.amount'), eb.lit(0)).as('points'))
    .$if(windowDays !== null, (q) => q.leftJoin('ledger_entries as lot', 'lot.id', 'e.reverses_id').where(sql<boolean>`${saleDate} > ${now - windowDays! * DAY}`));
}

/**
 * Points toward a tier earned in the `windowDays` up to and including `at` (all before it without a
 * window; a void counts on its sale's date, as in tierPoints): as they stand, net of voids, and as
 * they were first earned, before any void. takeBackTier asks whether voided points were what got a
 * member the tier they held at `at`.
 */
export async function tierPointsAt(db: Kysely<DB>, member: Member, windowDays: number | null, at: number): Promise<{ standing: number; earned: number }> {
  const row = await tierEntries(db, member)
    .leftJoin('ledger_entries as lot', 'lot.id', 'e.reverses_id')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('e.amount'), eb.lit(0)).as('standing'),
      eb.fn.coalesce(eb.fn.sum<number>(sql`case when e.kind = 'earn' then e.amount else 0 end`), eb.lit(0)).as('earned'),
    ])
    .where(sql<boolean>`${saleDate} <= ${at}`)
    .$if(windowDays !== null, (q) => q.where(sql<boolean>`${saleDate} > ${at - windowDays! * DAY}`))
    .executeTakeFirstOrThrow();
  return { standing: Number(row.standing), earned: Number(row.earned) };
}
