import type { Kysely } from 'kysely';
import { WIPED_PERSON } from '../../customers/personal-data';
import { dialectOf, inList, noIndexOn } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import { chunks } from '../bulk-lists';

/**
 * Of these customers, those who left the vendor (docs/sync.md, "Customers who left a program"): a
 * membership there, none current, not merged into another account (a merged account travels with
 * its survivor's memberships, and is a former member when its survivor is). Central sends their
 * row to the vendor's stores without who they are: the stores keep it for the sales that point at it, and the person asked that program to
 * forget them. Left memberships are few: they are found in the ids' range of their own index
 * (migration 0030), and only those customers are looked at further.
 */
export async function formerMembersOf(db: Kysely<DB>, vendorId: number, userIds: readonly number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const asked = new Set(userIds);
  let [low, high] = [Infinity, -Infinity];
  for (const id of asked) [low, high] = [Math.min(low, id), Math.max(high, id)];
  const former = await leftOf(db, vendorId, asked, low, high);
  // A copy merged into an account (a store's registration of someone central knew) says who the
  // survivor is: it goes as the survivor does. Merged rows are few: read through their own index
  // (migration 0032, `+` keeps SQLite off the id range), not by id.
  const copies = await db
    .selectFrom('users')
    .select(['id', 'merged_into'])
    .where('merged_into', 'is not', null)
    .where(noIndexOn(dialectOf(db as Kysely<unknown>), 'id'), '>=', low)
    .where(noIndexOn(dialectOf(db as Kysely<unknown>), 'id'), '<=', high)
    .execute();
  const survivorOf = new Map(copies.filter((copy) => asked.has(Number(copy.id))).map((copy) => [Number(copy.id), Number(copy.merged_into)]));
  if (survivorOf.size === 0) return former;
  const survivors = new Set(survivorOf.values());
  const leftSurvivors = await leftOf(db, vendorId, survivors, Math.min(...survivors), Math.max(...survivors));
  for (const [copy, survivor] of survivorOf) if (leftSurvivors.has(survivor)) former.add(copy);
  return former;
}

/** Of these customers, those with a left membership of the vendor and no current one, not merged. */
async function leftOf(db: Kysely<DB>, vendorId: number, asked: ReadonlySet<number>, low: number, high: number): Promise<Set<number>> {
  const left = await db
    .selectFrom('user_vendors')
    .select('user_id')
    .where('vendor_id', '=', vendorId)
    .where('removed_at', 'is not', null)
    .where('user_id', '>=', low)
    .where('user_id', '<=', high)
    .execute();
  const candidates = [...new Set(left.map((row) => Number(row.user_id)).filter((id) => asked.has(id)))];
  if (candidates.length === 0) return new Set();
  const former = new Set(candidates);
  for (const chunk of chunks(candidates, 5_000)) {
    const stillIn = await db
      .selectFrom('users as u')
      .select('u.id')
      .where(inList(db, 'u.id', chunk, 'bigint'))
      .where((eb) =>
        eb.or([
          eb('u.merged_into', 'is not', null),
          eb.exists(eb.selectFrom('user_vendors as uv').select('uv.id').whereRef('uv.user_id', '=', 'u.id').where('uv.vendor_id', '=', vendorId).where('uv.removed_at', 'is', null)),
        ]),
      )
      .execute();
    for (const row of stillIn) former.delete(Number(row.id));
  }
  return former;
}

/** A customer's row as the stores of a program they left receive it. */
export function withoutPerson<T extends Record<string, unknown>>(row: T): T {
  return { ...row, ...WIPED_PERSON };
}
